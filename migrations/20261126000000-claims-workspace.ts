import { type Kysely, sql } from 'kysely';

/**
 * The claims workspace (D51).
 *
 * `claim_queue(state)` names the claim queue's tab of a state, one definition the list's
 * queries and the index below share (an immutable SQL function, so PostgreSQL inlines it on
 * both sides and matches the index). The tabs partition the states, so a tab is one value
 * and its page, oldest or newest first, is one range scan of `claims_store_queue_page_idx` at
 * any depth, however many states the tab holds (D24). `claim_type` has its own page index for
 * the type filter; the search (`q`) finds a claim by id (the key), its order's number, or the
 * shopper's e-mail (compared in lower case) through the indexes on those, then sorts the few
 * claims it found.
 *
 * Orders get the same keyset index for their list (live orders, newest first) and the two
 * search indexes (order number, customer e-mail in lower case); the claim search uses them
 * too, deleted orders included, since their claims remain.
 *
 * Staff notes (D51) are records of their own, never shown to the shopper or sent anywhere.
 * `actor_id` (notes, and now brand messages) is who wrote it: an app's client id, or a
 * user's id, as `claim_resolutions.user_id` holds either.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function claim_queue(state text) returns text
    language sql immutable parallel safe
    return case
      when state in ('NEW', 'OPEN', 'COMMUNICATING', 'WAITING_FOR_BRAND') then 'to_do'
      when state = 'WAITING_FOR_CUSTOMER' then 'waiting_on_shopper'
      when state in ('TEMPORARILY_DISMISSED', 'WAITING_FOR_OP') then 'on_hold'
      when state in ('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND') then 'approved'
      when state in ('DENIED', 'DISMISSED') then 'declined'
      when state in ('CLOSED', 'ARCHIVED') then 'closed'
    end;

    create index claims_store_queue_page_idx on claims (store_id, claim_queue(claim_state), created_at, id);
    create index claims_store_type_page_idx on claims (store_id, claim_type, created_at, id);
    create index claims_store_email_idx on claims (store_id, lower(author_email));

    create index orders_store_page_idx on orders (store_id, created_at, id) where deleted_at is null;
    create index orders_store_number_idx on orders (store_id, source_order_number);
    create index orders_store_email_idx on orders (store_id, lower(customer_email));

    create table claim_notes (
      id text primary key,
      claim_id text not null references claims (id) on delete cascade,
      note text not null check (char_length(note) between 1 and 5000),
      actor_id text,
      created_at timestamptz not null default clock_timestamp()
    );
    create index claim_notes_claim_idx on claim_notes (claim_id, created_at, id);

    alter table claim_messages add column actor_id text;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table claim_messages drop column actor_id;
    drop table claim_notes;
    drop index orders_store_email_idx;
    drop index orders_store_number_idx;
    drop index orders_store_page_idx;
    drop index claims_store_email_idx;
    drop index claims_store_type_page_idx;
    drop index claims_store_queue_page_idx;
    drop function claim_queue(text);
  `.execute(db);
}
