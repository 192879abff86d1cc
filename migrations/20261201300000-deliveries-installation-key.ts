import { type Kysely, sql } from 'kysely';

/**
 * A webhook delivery names its installation and that installation's app, and refers to them
 * with one foreign key, (installation_id, client_id) to the installation, instead of one to
 * each (D32, D35). Every foreign key's check locks the row it finds (`for key share`), and
 * every delivery of a store's events finds the same installation and app rows: a subscribed
 * write locked both, and wrote a WAL record for each. The pair keeps what the two kept (no
 * delivery of an installation or app that does not exist; deleting either deletes its
 * deliveries, the app's through its installations) and adds that a delivery's app is its
 * installation's, with one row lock fewer per delivery.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create unique index installations_id_client_key on installations (id, client_id);
    alter table webhook_deliveries
      add constraint webhook_deliveries_installation_fkey foreign key (installation_id, client_id)
        references installations (id, client_id) on delete cascade not valid,
      drop constraint webhook_deliveries_installation_id_fkey,
      drop constraint webhook_deliveries_client_id_fkey;
    alter table webhook_deliveries validate constraint webhook_deliveries_installation_fkey;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table webhook_deliveries
      add constraint webhook_deliveries_client_id_fkey foreign key (client_id)
        references apps (client_id) on delete cascade,
      add constraint webhook_deliveries_installation_id_fkey foreign key (installation_id)
        references installations (id) on delete cascade,
      drop constraint webhook_deliveries_installation_fkey;
    drop index installations_id_client_key;
  `.execute(db);
}
