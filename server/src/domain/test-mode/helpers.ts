import type { TTestClaimAdvance, TTestMailbox, WebhookTopic } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { refuse } from '../../lib/refusal';
import { ROLLUPS } from '../analytics/definition';
import { type ClaimLinks, viewClaimUrl } from '../claims/links';
import { type Actor, approveClaim, denyClaim, postMessage, transitionClaim } from '../claims/moves';
import { mailFacts } from '../mail/deliver';
import type { MailKind, MemberMailKind } from '../mail/outbox';
import { renderMail } from '../mail/render';
import { addDeliveryJobs } from '../webhooks/enqueue';
import { sampleBody } from '../webhooks/log';
import { recordEvent } from '../webhooks/record';

/**
 * The test helpers (D45). The auth gate lets only tokens of test stores reach them (route
 * metadata `mode: 'test'`), and every one acts on the token's store only (D7), through the
 * same domain functions the live routes use: nothing here moves a claim, records an event or
 * writes an e-mail any other way.
 */

/**
 * Moves a claim as the merchant would (D22): to APPROVED through the approve move, to DENIED
 * through the deny move, otherwise a transition; the same events, store credits and e-mails,
 * and 409 for a move the claim states forbid.
 */
export async function advanceClaim(db: Db, actor: Actor, claimId: string, body: TTestClaimAdvance): Promise<void> {
  switch (body.claimState) {
    case 'APPROVED':
      return approveClaim(db, actor, claimId, { resolutions: body.resolutions });
    case 'DENIED':
      return denyClaim(db, actor, claimId, { reason: body.reason, details: body.details ?? null });
    default:
      return transitionClaim(db, actor, claimId, body.claimState, body.note ?? null);
  }
}

/** A message from the claimant, as the shopper's claim page posts it (D41, D25); 404 for a claim of no store of the token. */
export async function addShopperMessage(db: Db, storeId: string, claimId: string, message: string): Promise<void> {
  const claim = await db
    .selectFrom('claims')
    .select('authorEmail')
    .where('storeId', '=', storeId)
    .where('id', '=', claimId)
    .executeTakeFirst();
  if (!claim) throw refuse.missing('claim not found');
  await postMessage(db, storeId, claimId, { message, senderType: 'customer', authorName: claim.authorEmail });
}

/** Records an event of `topic` with the sample body, delivered through the outbox like any (D32). */
export async function recordSampleEvent(db: Db, storeId: string, topic: WebhookTopic): Promise<string> {
  return transact(db, async (trx) => (await recordEvent(trx, { storeId, topic, body: sampleBody(topic, storeId) })).id);
}

/**
 * The test clock of retry schedules (D35): every pending delivery of the store's events that
 * no attempt holds is made due now and queued, in one statement.
 */
export async function flushDeliveries(db: Db, storeId: string): Promise<void> {
  await sql`
    with flushed as (
      update webhook_deliveries d
      set next_attempt_at = now(), queued_at = now(), updated_at = now()
      from webhook_events e
      where e.id = d.event_id and e.store_id = ${storeId} and d.status = 'pending'
        and (d.leased_until is null or d.leased_until < now())
      returning d.event_id, d.client_id, d.next_attempt_at
    )
    ${addDeliveryJobs(sql`flushed`)}
  `.execute(db);
}

/** How many e-mails the mail helper shows. */
const TEST_MAIL_LIMIT = 100;

/** The last e-mails of the store, newest first, as they would have been sent (D42). */
export async function listTestMail(db: Db, links: ClaimLinks, storeId: string): Promise<TTestMailbox> {
  const rows = await db
    .selectFrom('mailMessages')
    .select(['id', 'kind', 'recipient', 'createdAt'])
    .where('storeId', '=', storeId)
    // The shopper's mail: an invitation to the team (D53) is no test data.
    .where('kind', 'in', ['claim_filed', 'claim_approved', 'claim_denied', 'store_credit'])
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .limit(TEST_MAIL_LIMIT)
    .execute();
  const messages = [];
  for (const row of rows) {
    const { subject, text } = renderMail(
      await mailFacts(db, row.id, row.kind as Exclude<MailKind, MemberMailKind>, (linkId) =>
        viewClaimUrl(links, linkId),
      ),
    );
    messages.push({ to: row.recipient, subject, text, createdAt: row.createdAt.toISOString() });
  }
  return { messages };
}

/**
 * Empties the store of orders, claims, products, events and analytics rollups (D45, D52), in
 * one transaction; the
 * foreign keys take their rows with them (items, fulfillments, policies, claim items,
 * messages, store credits, e-mails, deliveries and attempts: the app's event log entries).
 * Settings, installations and tokens stay.
 */
export async function resetStore(db: Db, storeId: string): Promise<void> {
  await transact(db, async (trx) => {
    // First the fold's row (D52), written: a fold round holding it ends before the store's
    // rollups are read below; one that comes after fails to serialize and folds nothing.
    // Without it a round that committed day rows of this store in between was either refused
    // by the delete guard (a 500) or left counting what this deletes.
    await sql`update analytics_fold set xid = xid`.execute(trx);
    await trx.deleteFrom('webhookEvents').where('storeId', '=', storeId).execute();
    // The store's analytics rollups first (D52): they count the rows deleted next, and while
    // they are there a hard delete of those rows is refused (the ledgers go with the rows).
    for (const table of Object.keys(ROLLUPS))
      await sql`delete from ${sql.table(table)} where store_id = ${storeId}`.execute(trx);
    await trx.deleteFrom('claims').where('storeId', '=', storeId).execute();
    await trx.deleteFrom('orders').where('storeId', '=', storeId).execute();
    await trx.deleteFrom('products').where('storeId', '=', storeId).execute();
  });
}
