import { type Kysely, sql } from 'kysely';

/**
 * D57: what a carrier gave as proof that it delivered a package (who signed for it, a photo of
 * the delivery), kept with the package when a tracking provider sends one, for the
 * `carrier_delivered` signal's detail; null when none came. And the currency of a claim's
 * `claimed_value`, so a store's median claim compares amounts of one currency only: the
 * value index carries it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table tracking_packages add column delivery_proof jsonb;
    alter table claims add column claimed_currency text;
    drop index claims_store_value_idx;
    create index claims_store_value_idx on claims (store_id, claimed_currency, created_at) include (claimed_value)
      where claimed_value is not null;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index claims_store_value_idx;
    create index claims_store_value_idx on claims (store_id, created_at) include (claimed_value)
      where claimed_value is not null;
    alter table claims drop column claimed_currency;
    alter table tracking_packages drop column delivery_proof;
  `.execute(db);
}
