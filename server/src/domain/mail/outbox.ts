import { type RawBuilder, sql } from 'kysely';
import { writeInBatches } from '../../db/committed-batches';
import type { Db } from '../../db/database';
import { addJobs } from '../../db/jobs';
import { afterCommit } from '../../db/transact';
import { newId } from '../../lib/ids';
import { resolvedSettings } from '../partner/contexts';

/**
 * The mail outbox (D42). A change that e-mails the shopper writes its messages here, in its
 * own transaction (begun by `transact`), and they are queued once it commits. No job is added
 * inside the transaction (a NOTIFY in a request's commit would serialize commits
 * cluster-wide); the sweep (`sweepMail`, run by every delivering process) queues whatever a
 * crash between commit and `queueMail` left unqueued.
 */

/** The queue task that makes one attempt of one message. */
export const MAIL_TASK = 'mail_send';

export type MailKind = 'claim_filed' | 'claim_approved' | 'claim_denied' | 'store_credit';

export interface ClaimMail {
  storeId: string;
  /** The app that made the change: its partner context may override the merchant settings (D37). */
  clientId: string;
  claimId: string;
  /** The claim's own notice, sent when the resolved `sendConfirmationEmail` is true. */
  notice: 'claim_filed' | 'claim_approved' | 'claim_denied';
  /** Store credits issued by the change (D26): each is e-mailed whatever the setting says. */
  storeCreditCodes?: string[];
}

/**
 * Writes the messages of a claim change to its claimant, in the caller's transaction (D42):
 * the notice when the resolved settings (D37) say `sendConfirmationEmail`, and one message per
 * store credit always. Once the transaction commits they are queued (`queueMail`); in a
 * transaction not begun by `transact`, the sweep queues them. Answers the new messages' ids.
 */
export async function writeClaimMail(trx: Db, mail: ClaimMail): Promise<string[]> {
  const codes = mail.storeCreditCodes ?? [];
  const settings = await resolvedSettings(trx, mail.storeId, mail.clientId);
  const messages: { id: string; kind: MailKind; code: string | null }[] = [
    ...(settings?.sendConfirmationEmail ? [{ id: newId('mail'), kind: mail.notice, code: null }] : []),
    ...codes.map((code) => ({ id: newId('mail'), kind: 'store_credit' as const, code })),
  ];
  if (messages.length === 0) return [];
  // D45: a test store never talks to SMTP. Its messages are written `not_sent` (never queued,
  // never swept) and kept for the mail helper; its store credits show emailStatus NOT_SENT.
  const written = await sql<{ id: string; livemode: boolean }>`
    insert into mail_messages (id, store_id, claim_id, kind, store_credit_code, recipient, status, next_attempt_at)
    select m.id, c.store_id, c.id, m.kind, m.code, c.author_email,
      case when s.livemode then 'pending' else 'not_sent' end,
      case when s.livemode then now() end
    from claims c join stores s on s.id = c.store_id, unnest(
      ${messages.map((m) => m.id)}::text[], ${messages.map((m) => m.kind)}::text[], ${messages.map((m) => m.code)}::text[]
    ) with ordinality as m (id, kind, code, n)
    where c.id = ${mail.claimId} and c.store_id = ${mail.storeId} and c.author_email is not null
    order by m.n
    returning id, (status = 'pending') as livemode
  `.execute(trx);
  const ids = written.rows.map((r) => r.id);
  if (written.rows.some((r) => !r.livemode)) {
    await sql`
      update claim_store_credits set email_status = 'NOT_SENT', updated_at = now()
      where code in (select store_credit_code from mail_messages where id = any(${ids}::text[]))
    `.execute(trx);
    return ids;
  }
  afterCommit(trx, (db) => writeInBatches(db, queueMail, ids));
  return ids;
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
  await sql`
      with queued as (
        update mail_messages set queued_at = now()
        where id = any(${ids}::text[]) and status = 'pending' and queued_at is null
        returning id
      )
      ${addMailJobs(sql`queued`)}
  `.execute(db);
}

/**
 * A queued message no process has taken for this long is queued again: it covers a process
 * killed after the queue handed it the job but before it took the lease (graphile-worker
 * would free that job only after 4 hours). An extra job is harmless: the lease decides.
 */
export const STALE_QUEUED_S = 60;

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
