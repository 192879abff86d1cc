import {
  canTransition,
  type TApprovePreview,
  type TClaimApprove,
  type TClaimDeny,
  type TClaimMessageWrite,
  type TClaimState,
} from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { roundMoney } from '../../lib/money';
import { refuse } from '../../lib/refusal';
import { type AuditAction, auditActorOf, recordAudit } from '../audit/record';
import { attachableFiles, attachFiles } from '../files/attach';
import { noticeMailSteps, queueMailAfterCommit, writeClaimMail } from '../mail/outbox';
import { resolvedSettings } from '../partner/contexts';
import { recordEvent } from '../webhooks/record';
import { type StoreCredit, storeCredit, storeCreditCode } from './store-credit';

interface LockedClaim {
  id: string;
  claimState: TClaimState;
  sourceOrderId: string;
  currency: string;
}

/**
 * The store a change is made in and who makes it: an installed app (its client id), or a store
 * member with a staff token (D49: the user's id, and no app).
 */
export interface Actor {
  storeId: string;
  clientId: string | null;
  userId: string | null;
}

/** The store's claim `claimId` as a move reads it, locked (`for update`) when `lock`. */
function claimOf(db: Db, storeId: string, claimId: string, lock: boolean) {
  return sql<LockedClaim>`
    select c.id, c.claim_state, c.source_order_id, o.currency
    from claims c join orders o on o.id = c.order_id
    where c.store_id = ${storeId} and c.id = ${claimId}
    ${lock ? sql`for update of c` : sql``}
  `.execute(db);
}

/**
 * Who a resolution names in `userId` (D49): the member who approved, else the approving app's
 * client id, as before staff.
 */
const resolverOf = (actor: Actor): string | null => actor.userId ?? actor.clientId;

/**
 * Runs one state move of a claim (D22, D36) in a transaction that holds the claim's row lock
 * (`for update`) from the check to the commit. Of concurrent moves of one claim the first
 * wins; each later one waits for it, then reads the committed state and is checked against
 * it, so a move that is no longer allowed answers 409 and writes nothing. `apply` writes the
 * move's own rows and its event; the state change and its log row are written here.
 */
async function move(
  db: Db,
  actor: Actor,
  claimId: string,
  to: TClaimState,
  note: string | null,
  apply: (trx: Db, claim: LockedClaim) => Promise<void>,
): Promise<void> {
  return transact(db, async (trx) => {
    const claim = (await claimOf(trx, actor.storeId, claimId, true)).rows[0];
    // No such claim in the store answers 404 (D7); a move D22 forbids, 409.
    if (!claim) throw refuse.missing('claim not found');
    if (!canTransition(claim.claimState, to)) {
      throw refuse.conflict(`a ${claim.claimState} claim cannot move to ${to} (D22)`);
    }
    await apply(trx, claim);
    await sql`
      with moved as (
        update claims set claim_state = ${to}, updated_at = now()
          ${to === 'APPROVED' ? sql`, resolution_date = now()` : sql``}
        where id = ${claim.id}
      )
      insert into claim_state_changes (claim_id, from_state, to_state, client_id, user_id, note)
      values (${claim.id}, ${claim.claimState}, ${to}, ${actor.clientId}, ${actor.userId}, ${note})
    `.execute(trx);
    await recordAudit(trx, {
      store: actor.storeId,
      actor: auditActorOf(actor),
      action: MOVE_ACTIONS[to] ?? 'claim.moved',
      target: { type: 'claim', id: claim.id },
      changes: { before: { claimState: claim.claimState }, after: { claimState: to } },
    });
  });
}

/** D53: a decision is its own act in the audit log; every other move is `claim.moved`. */
const MOVE_ACTIONS: Partial<Record<TClaimState, AuditAction>> = { APPROVED: 'claim.approved', DENIED: 'claim.denied' };

/** What an approval writes: its resolutions, with the store credits of the `STORE_CREDIT` ones (D26). */
interface ApprovalPlan {
  resolutions: (Resolution & { credit: StoreCredit | null })[];
}

/**
 * D26, D36, D37: what approving the claim with `body` writes, computed and checked, nothing
 * written: each resolution, and for a `STORE_CREDIT` one its store credit in the order's
 * currency from the resolved settings of the approving app. Approve writes exactly this; the
 * preview (D51) answers it.
 */
async function planApproval(trx: Db, actor: Actor, claim: LockedClaim, body: TClaimApprove): Promise<ApprovalPlan> {
  checkStoreCredits(body, claim.currency);
  const settings = body.resolutions.some((r) => r.type === 'STORE_CREDIT')
    ? await resolvedSettings(trx, actor.storeId, actor.clientId)
    : undefined;
  return {
    resolutions: body.resolutions.map((r, i) => {
      const currency = r.paidCurrency ?? claim.currency;
      return {
        ...r,
        id: newId('clr'),
        position: i,
        currency,
        credit: r.type === 'STORE_CREDIT' && settings ? storeCredit(r.paidValue!, claim.currency, settings) : null,
        paid: r.paidValue == null ? null : roundMoney(r.paidValue, currency),
      };
    }),
  };
}

/**
 * `POST /v1/claims/:claimId/approve` (D22, D26, D36): moves the claim to `APPROVED`, writes
 * its resolutions, a store credit for each `STORE_CREDIT` one, and `claim/approved`. Store
 * credit is issued in the order's currency from the resolved settings of the approving app
 * (D37); a `paidCurrency` other than the order's is refused (400), as is a store credit of 0.
 */
export async function approveClaim(db: Db, actor: Actor, claimId: string, body: TClaimApprove): Promise<void> {
  return move(db, actor, claimId, 'APPROVED', null, async (trx, claim) => {
    const { resolutions } = await planApproval(trx, actor, claim, body);
    const credits = resolutions.flatMap((r) =>
      r.credit ? [{ ...r.credit, resolutionId: r.id, code: storeCreditCode() }] : [],
    );
    await writeResolutions(trx, claim.id, resolverOf(actor), resolutions, credits);
    await recordEvent(trx, {
      storeId: actor.storeId,
      topic: 'claim/approved',
      body: {
        claimId: claim.id,
        storeId: actor.storeId,
        resolutions: resolutions.map((r) => ({ type: r.type, itemId: r.itemId ?? null, quantity: r.quantity ?? null })),
      },
    });
    // D42: the approval notice, and each store credit (D26) whatever sendConfirmationEmail says.
    await writeClaimMail(trx, {
      ...actor,
      claimId: claim.id,
      notice: 'claim_approved',
      storeCreditCodes: credits.map((s) => s.code),
    });
  });
}

/**
 * `POST /v1/claims/:claimId/approve/preview` (D51): what approving with `body` would create
 * (its store credits), from the same plan approve writes, refusing what approve would refuse
 * (404, 409 for a move D22 forbids, 400) and writing nothing: no lock, no row, no event.
 */
export async function previewApproval(
  db: Db,
  actor: Actor,
  claimId: string,
  body: TClaimApprove,
): Promise<TApprovePreview> {
  const claim = (await claimOf(db, actor.storeId, claimId, false)).rows[0];
  if (!claim) throw refuse.missing('claim not found');
  if (!canTransition(claim.claimState, 'APPROVED'))
    throw refuse.conflict(`a ${claim.claimState} claim cannot move to APPROVED (D22)`);
  const { resolutions } = await planApproval(db, actor, claim, body);
  return {
    storeCredits: resolutions.flatMap((r) =>
      r.credit
        ? [
            {
              resolution: r.position,
              creditValue: r.credit.creditValue,
              bonusValue: r.credit.bonusValue,
              totalValue: r.credit.totalValue,
              bonus: r.credit.bonus,
              bonusType: r.credit.bonusType,
              currency: r.credit.currency,
              storeCreditType: r.credit.creditType,
            },
          ]
        : [],
    ),
  };
}

/** D26, D36: store credit is issued in the order's currency, and is more than 0. */
function checkStoreCredits(body: TClaimApprove, currency: string): void {
  const issues = body.resolutions.flatMap((r, i) => {
    if (r.type !== 'STORE_CREDIT') return [];
    const path = `body.resolutions.${i}`;
    if (r.paidCurrency != null && r.paidCurrency !== currency)
      return [
        { path: `${path}.paidCurrency`, message: `store credit is issued in the order's currency (${currency})` },
      ];
    if (roundMoney(r.paidValue ?? 0, currency) <= 0)
      return [{ path: `${path}.paidValue`, message: 'must be greater than 0 for STORE_CREDIT (D36)' }];
    return [];
  });
  if (issues.length > 0) throw refuse.issues(issues);
}

type Resolution = TClaimApprove['resolutions'][number] & {
  id: string;
  position: number;
  currency: string;
  paid: number | null;
};
type Credit = StoreCredit & { resolutionId: string; code: string };

/** An approval's resolutions and store credits, in one statement. */
async function writeResolutions(
  trx: Db,
  claimId: string,
  resolver: string | null,
  resolutions: readonly Resolution[],
  credits: readonly Credit[],
): Promise<void> {
  const col = <T>(f: (r: Resolution) => T) => resolutions.map(f);
  const c = <T>(f: (r: Credit) => T) => credits.map(f);
  await sql`
    with written as (
      insert into claim_resolutions (
        id, claim_id, position, user_id, resolution_type, resolution_details, item_id, quantity,
        paid_value, paid_currency, paid_original_value, include_shipping, shipping_amount,
        credit_store, claim_state
      )
      select r.id, ${claimId}, r.position, ${resolver}, r.type, r.details, r.item_id, r.quantity,
        r.paid, r.currency, r.original, coalesce(r.include_shipping, false), r.shipping,
        r.type = 'STORE_CREDIT', 'APPROVED'
      from unnest(
        ${col((r) => r.id)}::text[], ${col((r) => r.position)}::int[], ${col((r) => r.type)}::text[],
        ${col((r) => r.details ?? null)}::text[], ${col((r) => r.itemId ?? null)}::text[],
        ${col((r) => r.quantity ?? null)}::int[], ${col((r) => r.paid)}::numeric[],
        ${col((r) => (r.paidValue == null && r.paidCurrency == null ? null : r.currency))}::text[],
        ${col((r) => r.paidValue ?? null)}::numeric[], ${col((r) => r.includeShipping ?? null)}::boolean[],
        ${col((r) => (r.shippingAmount == null ? null : roundMoney(r.shippingAmount, r.currency)))}::numeric[]
      ) as r (id, position, type, details, item_id, quantity, paid, currency, original, include_shipping, shipping)
    )
    insert into claim_store_credits (
      code, claim_id, resolution_id, credit_value, bonus_value, total_value, bonus, bonus_type,
      credit_type, credit_currency
    )
    select s.code, ${claimId}, s.resolution_id, s.credit, s.bonus_value, s.total, s.bonus, s.bonus_type,
      s.credit_type, s.currency
    from unnest(
      ${c((s) => s.code)}::text[], ${c((s) => s.resolutionId)}::text[],
      ${c((s) => String(s.creditValue))}::numeric[], ${c((s) => String(s.bonusValue))}::numeric[],
      ${c((s) => String(s.totalValue))}::numeric[], ${c((s) => String(s.bonus))}::numeric[],
      ${c((s) => s.bonusType)}::text[], ${c((s) => s.creditType)}::text[], ${c((s) => s.currency)}::text[]
    ) as s (code, resolution_id, credit, bonus_value, total, bonus, bonus_type, credit_type, currency)
  `.execute(trx);
}

/** `POST /v1/claims/:claimId/deny` (D22, D36): moves the claim to `DENIED` and records `claim/denied`. */
export async function denyClaim(db: Db, actor: Actor, claimId: string, body: TClaimDeny): Promise<void> {
  return move(db, actor, claimId, 'DENIED', body.details ?? null, async (trx, claim) => {
    await sql`update claims set deny_reason = ${body.reason}, deny_details = ${body.details ?? null} where id = ${claim.id}`.execute(
      trx,
    );
    await recordEvent(trx, {
      storeId: actor.storeId,
      topic: 'claim/denied',
      body: { claimId: claim.id, storeId: actor.storeId, sourceOrderId: claim.sourceOrderId, reason: body.reason },
    });
    await writeClaimMail(trx, { ...actor, claimId: claim.id, notice: 'claim_denied' });
  });
}

/**
 * `POST /v1/claims/:claimId/transition` (D22, D36): every other move. The contract refuses
 * `APPROVED` and `DENIED` as targets (400): approve and deny carry their details.
 */
export async function transitionClaim(
  db: Db,
  actor: Actor,
  claimId: string,
  to: TClaimState,
  note: string | null,
): Promise<void> {
  return move(db, actor, claimId, to, note, async () => {});
}

/**
 * `POST /v1/claims/:claimId/messages` (D25): adds a message to the store's claim, touches the
 * claim's `updatedAt` and records `message/created`, in one transaction. Refused (404) when the
 * store has no such claim. `actorId` is who wrote it when not the shopper (an app's client id,
 * or a user's id), for the timeline (D51).
 */
export async function postMessage(
  db: Db,
  storeId: string,
  claimId: string,
  m: TClaimMessageWrite,
  actorId: string | null = null,
): Promise<void> {
  // D56: the service's own files the medias name, the claim's or attached nowhere yet.
  const medias = (m.medias ?? []).map((url, k) => ({ path: `body.medias.${k}`, url }));
  return transact(db, async (trx) => {
    // Checked with the files locked, so a concurrent claim or message cannot take one between.
    const files = await attachableFiles(trx, storeId, medias, claimId, { lock: true });
    const messageId = newId('msg');
    // D53: a shopper's message tells the members who asked for it, in the same statement.
    const shopper = m.senderType === 'customer';
    const written = (
      await sql<{ id: string; queuedNotices: string[] }>`
        with claim as (
          update claims set updated_at = now() where store_id = ${storeId} and id = ${claimId}
          returning id, store_id
        ), written as (
          insert into claim_messages (id, claim_id, sender_type, message, author_name, medias, actor_id)
          select ${messageId}, claim.id, ${m.senderType}, ${m.message}, ${m.authorName ?? null},
            ${JSON.stringify(m.medias ?? [])}::jsonb, ${actorId}
          from claim
          returning id
        ), ${noticeMailSteps('notice_shopper_replied', shopper ? sql`claim` : sql`(select * from claim where false)`)}
        select id, array(select id from notices where queued) as queued_notices from written
      `.execute(trx)
    ).rows[0];
    if (!written) throw refuse.missing('claim not found');
    await attachFiles(trx, claimId, files);
    queueMailAfterCommit(trx, written.queuedNotices);
    await recordEvent(trx, {
      storeId,
      topic: 'message/created',
      body: { claimId, storeId, messageId, senderType: m.senderType, message: m.message },
    });
  });
}
