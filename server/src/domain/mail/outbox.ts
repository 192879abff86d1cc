import { type RawBuilder, sql } from 'kysely';
import { writeInBatches } from '../../db/committed-batches';
import { type Db, inOneTrip } from '../../db/database';
import { addJobs } from '../../db/jobs';
import { lockedByKey } from '../../db/locked-by-key';
import { afterCommit } from '../../db/transact';
import { newId } from '../../lib/ids';
import { currentTraceparent } from '../../lib/tracing';
import { resolvedSettingSql } from '../partner/contexts';

/**
 * The mail outbox (D42). A change that e-mails the shopper writes its messages here, in its
 * own transaction (begun by `transact`), and they are queued once it commits. With tracing on
 * each message keeps the change's `traceparent`: its attempts are spans of that trace. No job is added
 * inside the transaction (a NOTIFY in a request's commit would serialize commits
 * cluster-wide); the sweep (`sweepMail`, run by every delivering process) queues whatever a
 * crash between commit and `queueMail` left unqueued.
 */

/** The queue task that makes one attempt of one message. */
export const MAIL_TASK = 'mail_send';

export type MailKind = 'claim_filed' | 'claim_approved' | 'claim_denied' | 'store_credit' | MemberMailKind;

/** Mail to the store's people, not its shoppers (D53): an invitation, and merchant notices. */
export type MemberMailKind = 'member_invited' | NoticeKind;
export type NoticeKind = 'notice_claim_filed' | 'notice_shopper_replied';

interface ClaimMail {
  storeId: string;
  /**
   * The app that made the change: its partner context may override the merchant settings (D37).
   * null for a staff member's change (D49): the merchant settings decide (no context matches).
   */
  clientId: string | null;
  claimId: string;
  /** The claim's own notice, sent when the resolved `sendConfirmationEmail` is true. */
  notice: 'claim_filed' | 'claim_approved' | 'claim_denied';
  /** Store credits issued by the change (D26): each is e-mailed whatever the setting says. */
  storeCreditCodes?: string[];
}

/**
 * The step of a statement that writes the messages of a claim change to its claimant (D42):
 * CTE `mail` writes the notice when the resolved settings (D37) say `sendConfirmationEmail`,
 * read in the same statement, and one message per store credit always. `claim` names a
 * relation of the statement with the claim's `id`, `store_id` and `author_email` (a claim
 * without an e-mail gets none). D45: a test store never talks to SMTP: its messages are
 * written `not_sent` (never queued, never swept) and kept for the mail helper, and CTE
 * `unsent_credits` (there only with store credits) shows their emailStatus NOT_SENT. Once the
 * statement has run, hand the ids of `mail`'s `queued` rows to `queueMailAfterCommit`.
 */
export function claimMailSteps(mail: ClaimMail, claim: RawBuilder<unknown>): RawBuilder<unknown> {
  const messages: { id: string; kind: MailKind; code: string | null }[] = [
    { id: newId('mail'), kind: mail.notice, code: null },
    ...(mail.storeCreditCodes ?? []).map((code) => ({ id: newId('mail'), kind: 'store_credit' as const, code })),
  ];
  const sendNotice = resolvedSettingSql('sendConfirmationEmail', sql`c.store_id`, mail.clientId);
  return sql`
    mail as (
      insert into mail_messages (id, store_id, claim_id, kind, store_credit_code, recipient, status, next_attempt_at, traceparent)
      select m.id, c.store_id, c.id, m.kind, m.code, c.author_email,
        case when s.livemode then 'pending' else 'not_sent' end,
        case when s.livemode then now() end, ${currentTraceparent()}::text
      from ${claim} c join stores s on s.id = c.store_id, unnest(
        ${messages.map((m) => m.id)}::text[], ${messages.map((m) => m.kind)}::text[], ${messages.map((m) => m.code)}::text[]
      ) with ordinality as m (id, kind, code, n)
      where c.author_email is not null and (m.code is not null or ${sendNotice} is true)
      order by m.n
      returning id, store_credit_code, (status = 'pending') as queued
    )${
      // Only a change with store credits has any to mark: PostgreSQL sets up every step of a
      // statement at each run, so one that can touch nothing is left out.
      mail.storeCreditCodes?.length
        ? sql`, unsent_credits as (
            update claim_store_credits set email_status = 'NOT_SENT', updated_at = now()
            where code in (select store_credit_code from mail where not queued)
          )`
        : sql``
    }`;
}

/**
 * Queues the messages `claimMailSteps` wrote in `trx` to be sent once it commits (D42). On a
 * database outside any transaction (the statement committed already) they are queued at once,
 * and the answer resolves when they are.
 */
export function queueMailAfterCommit(trx: Db, queued: readonly string[]): void | Promise<void> {
  if (queued.length > 0) return afterCommit(trx, (db) => writeInBatches(db, queueMail, queued));
}

/**
 * Writes the messages of a claim change to its claimant (`claimMailSteps`) in the caller's
 * transaction (D42), in one statement. Once the transaction commits they are queued; in a
 * transaction not begun by `transact`, the sweep queues them. Answers the new messages' ids.
 */
export async function writeClaimMail(trx: Db, mail: ClaimMail): Promise<string[]> {
  const claim = sql`(select id, store_id, author_email from claims where id = ${mail.claimId} and store_id = ${mail.storeId})`;
  const written = await sql<{ id: string; queued: boolean }>`
    with ${claimMailSteps(mail, claim)}
    select id, queued from mail
  `.execute(trx);
  queueMailAfterCommit(
    trx,
    written.rows.flatMap((m) => (m.queued ? [m.id] : [])),
  );
  return written.rows.map((m) => m.id);
}

/**
 * The step of a statement that writes the merchant notices of a claim event (D53): one message
 * to each member of the claim's store who opted in to `kind`, with the claim's dashboard link.
 * `claim` names a relation of the statement with the claim's `id` and `store_id`. Live
 * stores' claims only: a test store's claims are test data (D45), which never reaches SMTP, and
 * its mail helper shows the shopper's mail. CTE `notices` answers the new rows: hand their
 * ids to `queueMailAfterCommit`.
 */
export function noticeMailSteps(kind: NoticeKind, claim: RawBuilder<unknown>): RawBuilder<unknown> {
  const wants = kind === 'notice_claim_filed' ? sql`m.notify_claim_filed` : sql`m.notify_shopper_replied`;
  return sql`
    notices as (
      insert into mail_messages (id, store_id, claim_id, kind, recipient, status, next_attempt_at, traceparent)
      select 'mail_' || replace(gen_random_uuid()::text, '-', ''), c.store_id, c.id, ${kind}, u.email,
        'pending', now(), ${currentTraceparent()}::text
      from ${claim} c
      join stores s on s.id = c.store_id and s.livemode
      join store_members m on m.store_id = c.store_id and ${wants}
      join dashboard_users u on u.id = m.user_id
      returning id, (status = 'pending') as queued
    )`;
}

/**
 * Writes an invitation's e-mail (D53) in the caller's transaction, queued once it commits. It
 * goes out from test stores too: it is about a person joining, not test data.
 */
export async function writeInvitationMail(
  trx: Db,
  invitation: { storeId: string; invitationId: string; recipient: string },
): Promise<string> {
  const id = newId('mail');
  await trx
    .insertInto('mailMessages')
    .values({
      id,
      storeId: invitation.storeId,
      claimId: null,
      invitationId: invitation.invitationId,
      kind: 'member_invited',
      storeCreditCode: null,
      recipient: invitation.recipient,
      status: 'pending',
      nextAttemptAt: new Date(),
      traceparent: currentTraceparent(),
    })
    .execute();
  queueMailAfterCommit(trx, [id]);
  return id;
}

/** One `mail_send` job per row of `rows` (a CTE with the message `id`), due at once. */
const addMailJobs = (rows: RawBuilder<unknown>) =>
  addJobs(MAIL_TASK, sql`(select json_build_object('id', id) as payload, null::timestamptz as run_at from ${rows} q)`);

/**
 * Queues one job per message that nobody has queued yet, after the commits that wrote them
 * (in batches, `writeInBatches`). Marking a message queued and adding its job are one
 * statement, and the mark is only taken by this call or by the sweep (row locks), so a
 * message is queued once; what a failed batch misses, the sweep queues.
 */
async function queueMail(db: Db, ids: readonly string[]): Promise<void> {
  // On a generic plan, planned once per connection: it runs after every filing's commit, and
  // planned per call (PostgreSQL's choice for it) it cost 280 µs of planning for 450 of work.
  await inOneTrip(
    db,
    [
      sql`
      with queued as (
        update mail_messages m set queued_at = now()
        from ${lockedByKey('mail_messages', ['id'], sql`(select unnest(${ids}::text[]) as id)`)} latest
        where m.id = latest.id and latest.status = 'pending' and latest.queued_at is null
        returning m.id
      )
      ${addMailJobs(sql`queued`)}
  `,
    ],
    { genericPlans: true },
  );
}

/**
 * A queued message no process has taken for this long is queued again: it covers a process
 * killed after the queue handed it the job but before it took the lease (graphile-worker
 * would free that job only after 4 hours). An extra job is harmless: the lease decides.
 */
const STALE_QUEUED_S = 60;

/**
 * Queues every due message nobody queued (a crash between commit and `queueMail`, or a retry
 * whose time has come), every message whose lease expired (its holder died mid-attempt) and
 * every queued one left untaken for STALE_QUEUED_S. `skip locked` lets several processes
 * sweep at once, each queuing a message once. Answers how many were queued.
 */
export async function sweepMail(db: Db, limit = 500): Promise<number> {
  const result = await sql<{ queued: number }>`
    with due as (
      select id from mail_messages
      where status = 'pending' and next_attempt_at <= now() and (
        leased_until < now()
        or (leased_until is null and (
          queued_at is null or queued_at < now() - make_interval(secs => ${STALE_QUEUED_S})
        ))
      )
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    ), swept as (
      update mail_messages m set queued_at = now(), leased_until = null, lease_token = null, updated_at = now()
      from due where m.id = due.id
      returning m.id
    )
    ${addMailJobs(sql`swept`)}
  `.execute(db);
  return result.rows[0]?.queued ?? 0;
}
