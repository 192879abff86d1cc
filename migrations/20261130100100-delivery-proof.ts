import { type Kysely, sql } from 'kysely';

/**
 * D57: what a carrier gave as proof that it delivered a package (who signed for it, a photo of
 * the delivery), kept with the package when a tracking provider sends one, for the
 * `carrier_delivered` signal's detail; null when none came (a proof arriving on its own queues
 * the package's claims for their risk, as a change of status does). And the currency of a claim's
 * `claimed_value`, so a store's median claim compares amounts of one currency only: the
 * value index carries it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table tracking_packages add column delivery_proof jsonb;
    alter table claims add column claimed_currency text;
    drop index claims_store_value_idx;
    create index claims_store_value_idx on claims (store_id, claimed_currency, created_at) include (claimed_value)
      where claimed_value is not null and deleted_at is null;
    drop trigger tracking_packages_risk on tracking_packages;
    create trigger tracking_packages_risk after update on tracking_packages
      for each row when (new.order_id is not null and (
        new.status is distinct from old.status or new.order_id is distinct from old.order_id
        or new.source_fulfillment_id is distinct from old.source_fulfillment_id
        or new.delivery_proof is distinct from old.delivery_proof))
      execute function claim_risk_queue();
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop trigger tracking_packages_risk on tracking_packages;
    create trigger tracking_packages_risk after update on tracking_packages
      for each row when (new.order_id is not null and (
        new.status is distinct from old.status or new.order_id is distinct from old.order_id
        or new.source_fulfillment_id is distinct from old.source_fulfillment_id))
      execute function claim_risk_queue();
    drop index claims_store_value_idx;
    create index claims_store_value_idx on claims (store_id, created_at) include (claimed_value)
      where claimed_value is not null;
    alter table claims drop column claimed_currency;
    alter table tracking_packages drop column delivery_proof;
  `.execute(db);
}
