import { type Kysely, sql } from 'kysely';

/**
 * Team (D53). An invitation to a store is a row of `member_invitations` until it is accepted
 * (then a membership) or replaced (a new invitation of the same e-mail to the same store):
 * one per (store, e-mail). Its link (`/dashboard/invitations/<token>`) is built as the
 * shopper's claim link is (D41): the row holds only the random `link_id`, the token adds a
 * MAC under a key derived from SECRET_KEY.
 *
 * A member may opt in to merchant notices: an e-mail when a claim of the store is filed
 * (`notify_claim_filed`) or a shopper replies (`notify_shopper_replied`). Mail messages are no
 * longer only a claimant's: an invitation's names the invitation, a notice names its claim.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table member_invitations (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      email text not null check (email = lower(email)),
      role text not null check (role in ('owner', 'admin', 'agent', 'viewer')),
      link_id text not null unique,
      invited_by text references dashboard_users (id) on delete set null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      unique (store_id, email)
    );

    alter table store_members
      add column notify_claim_filed boolean not null default false,
      add column notify_shopper_replied boolean not null default false;
    -- The notices of a store: its members who asked for them.
    create index store_members_notices_idx on store_members (store_id)
      where notify_claim_filed or notify_shopper_replied;

    alter table mail_messages
      alter column claim_id drop not null,
      add column invitation_id text references member_invitations (id) on delete cascade,
      drop constraint mail_messages_kind_check,
      add constraint mail_messages_kind_check check (kind in (
        'claim_filed', 'claim_approved', 'claim_denied', 'store_credit',
        'member_invited', 'notice_claim_filed', 'notice_shopper_replied'
      )),
      add constraint mail_messages_subject_check check (
        (kind = 'member_invited') = (invitation_id is not null)
        and (kind = 'member_invited') = (claim_id is null)
      );
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    delete from mail_messages where kind in ('member_invited', 'notice_claim_filed', 'notice_shopper_replied');
    alter table mail_messages
      drop constraint mail_messages_subject_check,
      drop constraint mail_messages_kind_check,
      add constraint mail_messages_kind_check
        check (kind in ('claim_filed', 'claim_approved', 'claim_denied', 'store_credit')),
      drop column invitation_id,
      alter column claim_id set not null;
    drop index store_members_notices_idx;
    alter table store_members drop column notify_shopper_replied, drop column notify_claim_filed;
    drop table member_invitations;
  `.execute(db);
}
