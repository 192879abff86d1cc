import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Db } from '../../db/database';
import { lockedByKey } from '../../db/locked-by-key';
import { contextOf, currentTraceparent, inSpan, linkTo, SpanKind, tracingOn } from '../../lib/tracing';
import type { MailKind, MemberMailKind } from './outbox';
import { isMemberMail, type MailFacts, type MemberMailFacts, renderMail, renderMemberMail } from './render';
import type { Mailer, SendResult } from './send';
import type { MailSettings } from './settings';

/**
 * The life of one message (D42), as webhook deliveries live (D32): a job names a message; the
 * process that runs it first takes the message's lease (a conditional update, so of several
 * processes exactly one wins), makes the attempt, then records the outcome in one statement
 * that also sets the store credit's `emailStatus`. A process that dies mid-attempt leaves its
 * lease to expire, and the sweep queues the message again: at least once, and a crash between
 * the server's acceptance and the recording sends it once more.
 */

/** Seconds until the attempt after `attempts` attempts, or null once the schedule is spent. */
export function mailRetryDelay(schedule: readonly number[], attempts: number): number | null {
  return schedule[attempts - 1] ?? null;
}

/** How long an attempt holds its message: the connection, greeting and replies may each take the timeout. */
const leaseMs = (settings: Pick<MailSettings, 'mailTimeoutMs'>) => settings.mailTimeoutMs * 4;

interface Leased {
  kind: MailKind;
  recipient: string;
  attemptCount: number;
  /** The trace of the change that wrote the message, when tracing was on. */
  traceparent: string | null;
}

interface FactsRow {
  storeName: string;
  sourceOrderNumber: string;
  linkId: string;
  denyReason: string | null;
  code: string | null;
  creditValue: string | null;
  bonusValue: string | null;
  totalValue: string | null;
  creditCurrency: string | null;
  creditType: string | null;
}

/**
 * Takes the message's lease when it is due and nobody holds it; undefined otherwise. The
 * conditions are checked on the message's locked row (`lockedByKey`).
 */
async function takeLease(db: Db, id: string, token: string, ms: number): Promise<Leased | undefined> {
  const result = await sql<Leased>`
    update mail_messages m
    set leased_until = now() + make_interval(secs => ${ms / 1000}), lease_token = ${token}
    from ${lockedByKey('mail_messages', ['id'], sql`(select ${id}::text as id)`)} latest
    where m.id = latest.id and latest.status = 'pending' and latest.next_attempt_at <= now()
      and (latest.leased_until is null or latest.leased_until < now())
    returning m.kind, m.recipient, m.attempt_count, m.traceparent
  `.execute(db);
  return result.rows[0];
}

/**
 * The shopper's claim link of a claim's random `link_id` (D41). The claims area makes it
 * (`viewClaimUrl`); the process hands it in, so mail depends on no claim code.
 */
export type ClaimUrlOf = (linkId: string) => string;

/**
 * The links mail carries, handed in by the process: the shopper's claim link (D41), an
 * invitation's link (D53) and the public base URL that the dashboard's claim pages hang from.
 */
export interface MailLinks {
  claimUrlOf: ClaimUrlOf;
  invitationUrlOf: (linkId: string) => string;
  publicBaseUrl: string;
}

interface MemberFactsRow {
  storeId: string;
  storeName: string;
  claimId: string | null;
  sourceOrderNumber: string | null;
  invitationLinkId: string | null;
  role: string | null;
}

/** What a message to the store's people says (D53), read now from its invitation or claim. */
export async function memberMailFacts(
  db: Db,
  id: string,
  kind: MemberMailKind,
  links: MailLinks,
): Promise<MemberMailFacts> {
  const row = (
    await sql<MemberFactsRow>`
      select s.id as store_id, s.name as store_name, m.claim_id, o.source_order_number,
        i.link_id as invitation_link_id, i.role
      from mail_messages m
      join stores s on s.id = m.store_id
      left join member_invitations i on i.id = m.invitation_id
      left join claims c on c.id = m.claim_id
      left join orders o on o.id = c.order_id
      where m.id = ${id}
    `.execute(db)
  ).rows[0]!;
  const base = links.publicBaseUrl.replace(/\/+$/, '');
  return {
    kind,
    storeName: row.storeName,
    sourceOrderNumber: row.sourceOrderNumber,
    role: row.role,
    link: row.invitationLinkId
      ? links.invitationUrlOf(row.invitationLinkId)
      : `${base}/dashboard/stores/${encodeURIComponent(row.storeId)}/claims/${encodeURIComponent(row.claimId ?? '')}`,
  };
}

/** What the message says, read now from the claim, its order, store and store credit. */
export async function mailFacts(
  db: Db,
  id: string,
  kind: Exclude<MailKind, MemberMailKind>,
  claimUrlOf: ClaimUrlOf,
): Promise<MailFacts> {
  const row = (
    await sql<FactsRow>`
      select s.name as store_name, o.source_order_number, c.link_id, c.deny_reason,
        sc.code, sc.credit_value, sc.bonus_value, sc.total_value, sc.credit_currency, sc.credit_type
      from mail_messages m
      join claims c on c.id = m.claim_id
      join orders o on o.id = c.order_id
      join stores s on s.id = m.store_id
      left join claim_store_credits sc on sc.code = m.store_credit_code
      where m.id = ${id}
    `.execute(db)
  ).rows[0]!;
  const currency = row.creditCurrency?.trim() ?? '';
  return {
    kind,
    storeName: row.storeName,
    sourceOrderNumber: row.sourceOrderNumber,
    // D41: the shopper's capability link, as the claim record gives it.
    claimUrl: claimUrlOf(row.linkId),
    denyReason: row.denyReason,
    credit: row.code
      ? {
          code: row.code,
          creditValue: Number(row.creditValue),
          bonusValue: Number(row.bonusValue),
          totalValue: Number(row.totalValue),
          currency,
          creditType: row.creditType ?? '',
        }
      : null,
  };
}

/**
 * Runs one job: one attempt of one message, if it is still due and nobody else holds it.
 * `attempted` sees the attempt's outcome and how long the send took (the process's figures).
 */
export async function runMail(
  db: Db,
  settings: MailSettings,
  links: MailLinks,
  mailer: Mailer,
  logger: Logger,
  id: string,
  attempted?: (outcome: SendResult['outcome'], seconds: number) => void,
): Promise<void> {
  const token = crypto.randomUUID();
  const leased = await takeLease(db, id, token, leaseMs(settings));
  if (!leased) return;
  const f = isMemberMail(leased.kind)
    ? await memberMailFacts(db, id, leased.kind, links)
    : await mailFacts(db, id, leased.kind, links.claimUrlOf);
  const rendered = 'link' in f ? renderMemberMail(f) : renderMail(f);
  const started = performance.now();
  const result = await tracedSend(id, leased, () =>
    mailer.send({ id, storeName: f.storeName, recipient: leased.recipient, ...rendered }),
  );
  attempted?.(result.outcome, (performance.now() - started) / 1000);
  const status = await recordOutcome(db, settings, id, token, leased.attemptCount + 1, result);
  // D42: the id, kind and outcome only; never the address or the text.
  const line = { mail: id, kind: leased.kind, attempt: leased.attemptCount + 1, status };
  if (result.outcome === 'refused' || result.outcome === 'failed')
    logger.warn({ ...line, error: result.error }, 'mail attempt failed');
  else logger.info(line, 'mail attempt');
}

/**
 * With tracing on, an attempt is a span of the trace of the change that wrote the message (so
 * one trace runs from a request to the e-mails it caused), linked to the job that ran it, as a
 * webhook delivery's attempt is; a message written with tracing off is sent in the job's trace.
 * The span names the message and its kind, never its address or its text (D42).
 */
function tracedSend(id: string, leased: Leased, send: () => Promise<SendResult>): Promise<SendResult> {
  if (!tracingOn()) return send();
  const job = linkTo(currentTraceparent());
  return inSpan(
    `mail ${leased.kind}`,
    {
      kind: SpanKind.CLIENT,
      parent: contextOf(leased.traceparent),
      links: job ? [job] : [],
      attributes: { 'mail.id': id, 'mail.kind': leased.kind, 'mail.attempt': leased.attemptCount + 1 },
    },
    async (span) => {
      const result = await send();
      span?.setAttribute('mail.outcome', result.outcome);
      return result;
    },
  );
}

/**
 * Records an attempt, for the lease holder only (a holder whose lease was swept changes
 * nothing): the message's status, and its store credit's `emailStatus` (D26, D42): `SENT`
 * with `emailTime` once accepted, `FAILED` when refused or after the last retry, `NOT_SENT`
 * without an SMTP server; `PENDING` while retries remain. A retry is queued by the sweep once
 * its time comes. Answers the message's new status. The lease token alone says who holds the
 * message (whatever ends a lease or a message clears it).
 */
async function recordOutcome(
  db: Db,
  settings: MailSettings,
  id: string,
  token: string,
  attempts: number,
  result: SendResult,
): Promise<string> {
  const delay = result.outcome === 'failed' ? mailRetryDelay(settings.mailRetrySchedule, attempts) : null;
  const status =
    result.outcome === 'sent'
      ? 'sent'
      : result.outcome === 'not_sent'
        ? 'not_sent'
        : delay === null
          ? 'failed'
          : 'pending';
  const creditStatus = { sent: 'SENT', not_sent: 'NOT_SENT', failed: 'FAILED', pending: null }[status];
  const error = 'error' in result ? result.error : null;
  await sql`
    with message as (
      update mail_messages m
      set status = ${status}, attempt_count = ${attempts}, leased_until = null, lease_token = null,
        queued_at = null, error = ${error}, updated_at = now(),
        sent_at = ${status === 'sent' ? sql`now()` : sql`null`},
        next_attempt_at = ${delay === null ? sql`null` : sql`now() + make_interval(secs => ${delay})`}
      where m.id = ${id} and m.lease_token = ${token}
      returning m.store_credit_code
    )
    update claim_store_credits sc
    set email_status = ${creditStatus}, updated_at = now(),
      email_time = ${status === 'sent' ? sql`now()` : sql`null`}
    from message
    where ${creditStatus}::text is not null and sc.code = message.store_credit_code
  `.execute(db);
  return status;
}
