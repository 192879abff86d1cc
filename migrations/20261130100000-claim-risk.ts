import { type Kysely, sql } from 'kysely';

/**
 * D57: a claim's risk, stored with it. `risk_level` and `risk_signals` are written when the
 * claim is filed and again when what a signal sees changes; the list's `risk` filter reads
 * `claims_store_risk_page_idx`, one range scan per level at any depth (D24). `claimed_value`
 * (the sum of quantity × the order line's unit price, in the order's currency) is kept so a
 * store's median claim is read from the claims, never recomputed from their items;
 * `shipping_address_key` is the normalised shipping address an offline claim carries (D23),
 * the only address a claim has.
 *
 * Photos: `perceptual_hash` (64 bits) is split into four 16-bit bands, each indexed with the
 * store (attached photos only: a photo is compared with those on claims). Two hashes within a
 * Hamming distance of 6 have a band that differs in at most one bit (were every band two bits
 * apart or more, they would differ in 8), so the candidates are the photos whose band equals
 * one of the 17 values at most one bit from the photo's, in any of the four bands (68 index
 * probes), and the distance is then checked exactly with `bit_count`: no reuse is missed.
 *
 * `claim_risk_pending` holds the claims whose risk is to be computed again: rows written by
 * the triggers below when a claim gains a message or a file, or a package of its order
 * changes status (D54), and taken by the delivering processes' sweep within seconds.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table claims
      add column risk_level text not null default 'low' check (risk_level in ('low', 'medium', 'high')),
      add column risk_signals jsonb not null default '[]',
      add column claimed_value numeric,
      add column shipping_address_key text generated always as (
        case when nullif(btrim(offline_details -> 'shippingAddress' ->> 'address1'), '') is null then null
        else lower(regexp_replace(
          coalesce(offline_details -> 'shippingAddress' ->> 'address1', '') || '|' ||
          coalesce(offline_details -> 'shippingAddress' ->> 'address2', '') || '|' ||
          coalesce(offline_details -> 'shippingAddress' ->> 'city', '') || '|' ||
          coalesce(offline_details -> 'shippingAddress' ->> 'zip', '') || '|' ||
          coalesce(offline_details -> 'shippingAddress' ->> 'countryAbr',
            offline_details -> 'shippingAddress' ->> 'country', ''),
          '[[:space:][:punct:]]+', '', 'g'))
        end
      ) stored;
    create index claims_store_risk_page_idx on claims (store_id, risk_level, created_at, id);
    create index claims_store_address_idx on claims (store_id, shipping_address_key, created_at)
      where shipping_address_key is not null;
    create index claims_store_email_time_idx on claims (store_id, lower(author_email), created_at);
    create index claims_store_value_idx on claims (store_id, created_at) include (claimed_value)
      where claimed_value is not null;

    create index files_phash_band0_idx on files (store_id, ((perceptual_hash >> 48) & 65535))
      where perceptual_hash is not null and claim_id is not null;
    create index files_phash_band1_idx on files (store_id, ((perceptual_hash >> 32) & 65535))
      where perceptual_hash is not null and claim_id is not null;
    create index files_phash_band2_idx on files (store_id, ((perceptual_hash >> 16) & 65535))
      where perceptual_hash is not null and claim_id is not null;
    create index files_phash_band3_idx on files (store_id, (perceptual_hash & 65535))
      where perceptual_hash is not null and claim_id is not null;

    create table claim_risk_pending (
      claim_id text primary key references claims (id) on delete cascade,
      queued_at timestamptz not null default now()
    );

    create function claim_risk_queue() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'tracking_packages' then
        insert into claim_risk_pending (claim_id)
        select distinct c.id from claims c join claim_items i on i.claim_id = c.id
        where c.order_id = new.order_id and i.source_fulfillment_id = new.source_fulfillment_id
        on conflict do nothing;
      elsif new.claim_id is not null then
        insert into claim_risk_pending (claim_id) values (new.claim_id) on conflict do nothing;
      end if;
      return null;
    end $$;
    create trigger claim_messages_risk after insert on claim_messages
      for each row execute function claim_risk_queue();
    create trigger files_risk after update of claim_id on files
      for each row when (new.claim_id is distinct from old.claim_id) execute function claim_risk_queue();
    create trigger tracking_packages_risk_insert after insert on tracking_packages
      for each row when (new.order_id is not null) execute function claim_risk_queue();
    create trigger tracking_packages_risk after update on tracking_packages
      for each row when (new.order_id is not null and (
        new.status is distinct from old.status or new.order_id is distinct from old.order_id
        or new.source_fulfillment_id is distinct from old.source_fulfillment_id))
      execute function claim_risk_queue();
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop trigger tracking_packages_risk on tracking_packages;
    drop trigger tracking_packages_risk_insert on tracking_packages;
    drop trigger files_risk on files;
    drop trigger claim_messages_risk on claim_messages;
    drop function claim_risk_queue();
    drop table claim_risk_pending;
    drop index files_phash_band3_idx;
    drop index files_phash_band2_idx;
    drop index files_phash_band1_idx;
    drop index files_phash_band0_idx;
    drop index claims_store_value_idx;
    drop index claims_store_email_time_idx;
    drop index claims_store_address_idx;
    drop index claims_store_risk_page_idx;
    alter table claims drop column shipping_address_key, drop column claimed_value,
      drop column risk_signals, drop column risk_level;
  `.execute(db);
}
