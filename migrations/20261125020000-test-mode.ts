import { type Kysely, sql } from 'kysely';

/**
 * Test mode (D45). A store is live or a test store for life (`livemode`, fixed by a trigger);
 * a test store belongs to the app whose owner made it (`test_client_id`, at most 5 per app,
 * counted under the app's row lock) and has a domain ending in `.test`, a suffix no live store
 * may take. Each app may hold a second client secret that works only on its test stores,
 * stored as a SHA-256 digest like the live one (D5); apps registered earlier have none until
 * their first test store. A test store's e-mail never reaches SMTP: its `mail_messages` rows
 * are written `not_sent` and kept for the mail helper, so no new table is needed for them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table stores add column livemode boolean not null default true;
    alter table stores add column test_client_id text references apps (client_id) on delete cascade;
    alter table stores add constraint stores_mode_check check (
      (livemode and test_client_id is null and domain not like '%.test')
      or (not livemode and test_client_id is not null and domain like '%.test')
    );
    create index stores_test_client_idx on stores (test_client_id) where test_client_id is not null;

    create function stores_livemode_fixed() returns trigger language plpgsql as $$
    begin
      if new.livemode is distinct from old.livemode or new.test_client_id is distinct from old.test_client_id then
        raise exception 'a store''s mode is fixed for life';
      end if;
      return new;
    end $$;
    create trigger stores_livemode_fixed before update on stores
      for each row execute function stores_livemode_fixed();

    alter table apps add column test_client_secret_hash text;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    delete from stores where not livemode;
    drop trigger stores_livemode_fixed on stores;
    drop function stores_livemode_fixed();
    alter table stores drop constraint stores_mode_check;
    alter table stores drop column test_client_id;
    alter table stores drop column livemode;
    alter table apps drop column test_client_secret_hash;
  `.execute(db);
}
