import { type Kysely, sql } from 'kysely';

/**
 * E-mail to shoppers (D42). Each message is a row of `mail_messages`, written in the
 * transaction of the change that causes it (a claim filed, approved or denied, a store credit
 * issued): a change that rolls back sends nothing, one that commits loses nothing.
 *
 * No trigger enqueues the send here: a NOTIFY in the commit of a request would serialize
 * commits across the cluster. The process that committed enqueues the message's job right
 * after its commit (setting `queued_at`), and every delivering process sweeps once a second
 * for due messages nobody queued (a crash between commit and enqueue), for expired leases
 * (a crash mid-send) and for queued ones no process took for long.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table mail_messages (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      claim_id text not null references claims (id) on delete cascade,
      kind text not null check (kind in ('claim_filed', 'claim_approved', 'claim_denied', 'store_credit')),
      -- The store credit a 'store_credit' message carries (D26).
      store_credit_code text references claim_store_credits (code) on delete cascade,
      recipient text not null,
      status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'not_sent')),
      attempt_count integer not null default 0,
      next_attempt_at timestamptz default now(),
      -- When a job was last added for this attempt; null: nobody has queued it yet.
      queued_at timestamptz,
      -- The attempt in flight, as for webhook deliveries: its holder owns it until leased_until.
      leased_until timestamptz,
      lease_token text,
      sent_at timestamptz,
      -- Why the last attempt failed, in the mail library's or server's words (never the address).
      error text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check ((kind = 'store_credit') = (store_credit_code is not null))
    );
    create index mail_messages_claim_idx on mail_messages (claim_id, created_at);
    -- The sweep: due messages not queued, expired leases.
    create index mail_messages_pending_idx on mail_messages (next_attempt_at)
      where status = 'pending';

    -- D42: a store credit's e-mail is NOT_SENT when the service has no SMTP server.
    alter table claim_store_credits drop constraint claim_store_credits_email_status_check;
    alter table claim_store_credits add constraint claim_store_credits_email_status_check
      check (email_status in ('PENDING', 'SENT', 'FAILED', 'NOT_SENT'));
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table mail_messages;
    update claim_store_credits set email_status = 'PENDING' where email_status = 'NOT_SENT';
    alter table claim_store_credits drop constraint claim_store_credits_email_status_check;
    alter table claim_store_credits add constraint claim_store_credits_email_status_check
      check (email_status in ('PENDING', 'SENT', 'FAILED'));
  `.execute(db);
}
