import type {
  TClaimFile,
  TClaimType,
  TIssueType,
  TOfflineClaimFile,
  TOfflineClaimFiled,
} from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import { type Db, inOneTrip, prepared } from '../../db/database';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';
import { claimableItems } from '../commerce/claimable';
import { liveOrderLock } from '../commerce/live-order';
import { attachableFiles, attachFiles, attachStatement, lockFiles, refuseTaken } from '../files/attach';
import { claimMailSteps, noticeMailSteps, queueMailAfterCommit } from '../mail/outbox';
import { eventSteps, queueAfterCommit } from '../webhooks/record';
import type { Actor } from './moves';
import { filingRisk, riskBodyText, riskStatement, settledStatement } from './risk/signals';

/** One claimed line: a filed issue (online) or the single item (offline). */
interface ClaimLine {
  itemId: string | null;
  quantity: number;
  issueType: TIssueType | null;
  sourceFulfillmentId: string | null;
  sourceProductId: string | null;
  sourceVariantId: string | null;
  details: string | null;
  images: string[];
}

interface NewClaim {
  storeId: string;
  sourceOrderId: string;
  claimFiledFrom: 'EXTERNAL' | 'INTERNAL';
  authorEmail: string;
  resolutionRequested: string | null;
  claimCategory: 'SHIPPING' | 'WARRANTY';
  salesChannel: 'ONLINE' | 'IN_STORE';
  warrantyPeriod: string | null;
  options: unknown;
  offlineDetails: unknown;
  lines: ClaimLine[];
  documents: { url: string; documentType: 'SIGNATURE' | 'RECEIPT' | 'IMAGE' }[];
  /** The claim type when the lines' issue types do not say it (D54: LOST_IN_TRANSIT, DELAYED). */
  claimType?: TClaimType;
  /** The claim's description when the lines' details do not say it (D54: the tracking evidence). */
  description?: string;
  /** Where the claim came from when not the API (D54: `tracking`). */
  externalSource?: string;
}

/** What a claim asks of one line item of a live order, in the order the claim names them. */
interface Asked {
  itemId: string;
  quantity: number;
}

/**
 * The order a claim is written on: one just written (`orderId`, the offline filing), or the
 * store's live order `sourceOrderId` read by the statement itself, which then writes the claim
 * only if what it asks of the order's items fits what is left to claim (D39).
 */
type ClaimOn =
  | { orderId: string; authorName: string | null }
  | { live: true; asked: readonly Asked[]; fileIds?: readonly string[]; risk?: boolean };

/** What the claim's statement answers: what to queue once it committed. */
interface Written {
  subscribers: string[];
  queuedMail: string[];
}

/**
 * An asked line the live order cannot give (D23, D39), as the statement found it: the
 * `n`th asked line (from 1) names an item that is no line item of the order (`ordered` and
 * `claimable` null), or brings what is asked of its item, this line and those before it
 * (`requested`), past what is left to claim of it.
 */
interface Shortfall {
  n: number;
  itemId: string;
  requested: number;
  ordered: number | null;
  claimable: number | null;
}

/**
 * ... and, filed on a live order: whether the order was found, and what kept the claim out:
 * shortfalls, or files it names that another claim or message took first (D56).
 */
type WrittenOnLive = Written & { found: boolean; shortfalls: Shortfall[]; taken: string[] };

/** D22: the issue type when all lines share one, `MULTIPLE` when they differ, else null. */
function claimTypeOf(lines: ClaimLine[]): TClaimType | null {
  const types = new Set(lines.flatMap((l) => (l.issueType ? [l.issueType] : [])));
  if (types.size === 0) return null;
  return types.size === 1 ? [...types][0]! : 'MULTIPLE';
}

/**
 * The one statement that writes a `NEW` claim with its items and documents, records
 * `claim/created` (D22) and writes the claimant's confirmation e-mail (D42), whatever the
 * number of items, its text one of a few (a prepared statement). On a live order (`on.live`)
 * it reads the order, links its active policy, and writes nothing when an asked line falls
 * short (`liveSource`), answering the shortfalls; else the claim has no policy. Hand its
 * answer's `subscribers` and `queuedMail` to the after-commit queues. On a live order the claim
 * is written with its risk (D57, `filingRisk`, unless `on.risk` is false) and
 * `claim/created` carries it; else the claim is written `low` and `riskStatement` follows.
 */
function claimStatement(clientId: string | null, c: NewClaim, on: ClaimOn) {
  const id = newId('clm');
  const claimType = c.claimType ?? claimTypeOf(c.lines);
  const items = c.lines.map((l) => ({ ...l, id: newId('cli') }));
  const live = 'live' in on;
  const risk =
    live && on.risk !== false
      ? filingRisk({ id, storeId: c.storeId, email: c.authorEmail, lines: c.lines, fileIds: on.fileIds ?? [] })
      : undefined;
  const event = eventSteps(
    {
      storeId: c.storeId,
      topic: 'claim/created',
      body: {
        claimId: id,
        storeId: c.storeId,
        sourceOrderId: c.sourceOrderId,
        claimCategory: c.claimCategory,
        claimType,
        claimState: 'NEW',
        items: items.map((l) => ({ id: l.id, itemId: l.itemId, quantity: l.quantity, issueType: l.issueType })),
        // D57: the risk the claim was written with, or written over by the risk statement in
        // the same transaction, before any delivery.
        risk: { level: 'low', signals: [] },
      },
    },
    sql`claim`,
    risk ? sql`(select ${riskBodyText('w')} from claim w)` : undefined,
  );
  const mail = claimMailSteps({ storeId: c.storeId, clientId, claimId: id, notice: 'claim_filed' }, sql`claim`);
  // D53: the members who asked to hear of every filed claim, in the same statement.
  const notices = noticeMailSteps('notice_claim_filed', sql`claim`);
  const source = live
    ? liveSource(c, on.asked, on.fileIds ?? [])
    : sql`source as (select ${on.orderId}::text as order_id, ${on.authorName}::text as author_name, null::text as policy_id)`;
  const statement = sql<Written>`
    with ${source}, ${claimWrites(id, c, claimType, items, risk)}, ${event.steps}, ${mail}, ${notices}
    select array(select client_id from fanned) as subscribers,
      array(select id from mail where queued union all select id from notices where queued) as queued_mail
      ${
        live
          ? sql`, exists (select 1 from live_order) as found, coalesce((
              select json_agg(json_build_object('n', s.n, 'itemId', s.item_id, 'requested', s.requested,
                'ordered', s.ordered, 'claimable', s.claimable) order by s.n)
              from shortfalls s
            ), '[]') as shortfalls, array(select id from taken) as taken`
          : sql``
      }
  `;
  return { id, eventId: event.id, statement };
}

/**
 * `source` of a claim on the store's live order: the order, its author and its active policy,
 * one row when the claim is to be written, none when the order is missing or has `shortfalls`.
 * Where the order's line items are known, an asked line falls short when its item is no line
 * item of the order, or when the item's quantities asked so far exceed its claimable quantity
 * (`claimableItems`, D39): the rule is decided here, once, and the refusal only words it. The
 * service's files it names (`fileIds`, D56, locked by the trip before) must still be attached
 * nowhere: one a concurrent claim or message took first is `taken`, and the claim not written.
 */
function liveSource(c: NewClaim, asked: readonly Asked[], fileIds: readonly string[]) {
  return sql`live_order as (
      select o.id, o.line_items_known, o.customer_name from orders o
      where o.store_id = ${c.storeId} and o.source_order_id = ${c.sourceOrderId} and o.deleted_at is null
    ), asked as (
      select a.n, a.item_id, (sum(a.quantity) over (partition by a.item_id order by a.n))::int as requested
      from unnest(${asked.map((a) => a.itemId)}::text[], ${asked.map((a) => a.quantity)}::int[])
        with ordinality a (item_id, quantity, n)
    ), shortfalls as (
      -- Each asked line's item alone, and nothing at all for a claim that names none.
      select a.n, a.item_id, a.requested, k.ordered, k.claimable
      from live_order o
      join asked a on o.line_items_known
      left join lateral (${claimableItems(sql`o.id`, sql`a.item_id`)}) k on true
      where k.item_id is null or a.requested > k.claimable
    ), taken as (
      select n.id from unnest(${fileIds}::text[]) n (id)
      where not exists (select 1 from files f where f.id = n.id and f.claim_id is null)
    ), source as (
      select o.id as order_id, o.customer_name as author_name,
        (select p.id from protection_policies p where p.order_id = o.id and p.removed_at is null) as policy_id
      from live_order o
      where not exists (select 1 from shortfalls) and not exists (select 1 from taken)
    )`;
}

/**
 * The claim's rows, one `claim` for each `source` row: the claim, its items and its documents;
 * with `risk` (D57, the call of the risk function on the `source` row `s`), the claim's risk and
 * claimed value as it answers them, and its risk returned.
 */
function claimWrites(
  id: string,
  c: NewClaim,
  claimType: TClaimType | null,
  items: (ClaimLine & { id: string })[],
  risk: RawBuilder<unknown> | undefined,
) {
  const details = c.description ?? (c.lines.flatMap((l) => (l.details ? [l.details] : [])).join('\n\n') || null);
  const col = <T>(f: (l: (typeof items)[number]) => T) => items.map(f);
  const docs = c.documents.map((d) => ({ ...d, id: newId('cld') }));
  const riskColumns = risk ? sql`, risk_level, risk_signals, claimed_value, claimed_currency` : sql``;
  // The function's one row for each `source` row, called once, in the insert itself.
  const riskValues = risk ? sql`, r.level, r.signals, r.amount, r.currency` : sql``;
  const riskSource = risk ? sql` cross join lateral ${risk} r` : sql``;
  const riskReturned = risk ? sql`, risk_level, risk_signals` : sql``;
  return sql`claim as (
      insert into claims (
        id, store_id, order_id, source_order_id, policy_id, claim_filed_from, author_name, author_email,
        claim_description, resolution_requested, claim_type, claim_category, sales_channel,
        warranty_period, options, offline_details, external_source${riskColumns}
      )
      select ${id}, ${c.storeId}, s.order_id, ${c.sourceOrderId}, s.policy_id,
        ${c.claimFiledFrom}, s.author_name, ${c.authorEmail}, ${details}, ${c.resolutionRequested}, ${claimType},
        ${c.claimCategory}, ${c.salesChannel}, ${c.warrantyPeriod},
        ${c.options == null ? null : JSON.stringify(c.options)}::jsonb,
        ${c.offlineDetails == null ? null : JSON.stringify(c.offlineDetails)}::jsonb,
        ${c.externalSource ?? 'api'}${riskValues}
      from source s${riskSource}
      returning id, store_id, author_email${riskReturned}
    ), written_items as (
      insert into claim_items (
        id, claim_id, position, item_id, quantity, issue_type, source_fulfillment_id,
        source_product_id, source_variant_id, details, images
      )
      select w.id, claim.id, w.n, w.item_id, w.quantity, w.issue_type, w.fulfillment, w.product,
        w.variant, w.details, w.images::jsonb
      from claim, unnest(
        ${col((l) => l.id)}::text[], ${col((l) => l.itemId)}::text[], ${col((l) => l.quantity)}::int[],
        ${col((l) => l.issueType)}::text[], ${col((l) => l.sourceFulfillmentId)}::text[],
        ${col((l) => l.sourceProductId)}::text[], ${col((l) => l.sourceVariantId)}::text[],
        ${col((l) => l.details)}::text[], ${col((l) => JSON.stringify(l.images))}::text[]
      ) with ordinality as w (id, item_id, quantity, issue_type, fulfillment, product, variant, details, images, n)
    ), written_documents as (
      insert into claim_documents (id, claim_id, position, url, document_type)
      select d.id, claim.id, d.n, d.url, d.document_type
      from claim, unnest(${docs.map((d) => d.id)}::text[], ${docs.map((d) => d.url)}::text[],
        ${docs.map((d) => d.documentType)}::text[]) with ordinality as d (id, url, document_type, n)
    )`;
}

/**
 * `POST /v1/claims/:sourceOrderId` (D22, D23, D39): files a `NEW` claim against the store's
 * live order. When the order's line items are known, every issue's `sourceItemId` must name
 * one, and the quantities claimed per item may not exceed what is left to claim
 * (`claimableItems`; `issues`, 400). The claim links the order's active policy, or none.
 *
 * One transaction in one round trip (`inOneTrip`): the order row is locked first, `for no key
 * update` by a claim that names items, so concurrent such filings on one order run one after
 * the other and of two claims on its last unit exactly one is filed; either lock keeps a
 * concurrent PUT from swapping the line items (or a DELETE from ending the order) before the
 * claim is written. The claim's statement, the next, reads with a snapshot taken once the lock
 * was granted, so it counts every claim committed before; it writes the claim only if it fits
 * and answers the shortfalls it found, which the refusal words.
 */
export async function fileClaim(
  db: Db,
  actor: Actor,
  sourceOrderId: string,
  f: TClaimFile,
  /** Where the claim came from when not the API (D56: `shopper`, the claim form). */
  externalSource?: string,
  // Off only in `pnpm bench risk`, which measures filing with the risk against without it.
  { risk: withRisk = true }: { risk?: boolean } = {},
): Promise<string> {
  const { storeId } = actor;
  const issues: Issue[] = f.fulfillmentIssues.flatMap((fi, i) =>
    fi.issues.map((issue, j) => ({ ...issue, sourceFulfillmentId: fi.sourceFulfillmentId ?? null, at: [i, j] })),
  );
  // D56: the service's own files the images name, checked before the claim is written.
  const named = issues.flatMap((i) =>
    (i.images ?? []).map((url, k) => ({ path: `body.fulfillmentIssues.${i.at.join('.issues.')}.images.${k}`, url })),
  );
  const files = await attachableFiles(db, storeId, named);
  // Only the items a claim names are counted (D39); a claim naming none takes a share lock
  // and files beside others.
  const naming = issues.filter((i) => i.sourceItemId);
  const asked = naming.map((i) => ({ itemId: i.sourceItemId!, quantity: i.quantity }));
  const { id, eventId, statement } = claimStatement(
    actor.clientId,
    { ...onlineClaim(storeId, sourceOrderId, f, issues), externalSource },
    { live: true, asked, fileIds: files, risk: withRisk },
  );
  const lock = liveOrderLock(storeId, sourceOrderId, asked.length > 0 ? 'no key update' : 'share');
  // D56: the files are locked after the order and attached in the same trip; of two claims
  // naming one new file, the second waits for the first and then finds it taken. The claim is
  // written with its risk (D57), which saw the photos it names: their attaching does not send
  // it to the sweep.
  const settled = withRisk ? [settledStatement(id)] : [];
  const attach = files.length > 0 ? [lockFiles(files), statement, attachStatement(id, files), ...settled] : [statement];
  const trip = [lock, ...attach];
  const results = await inOneTrip(db, trip, { genericPlans: true });
  const written = results[trip.indexOf(statement)]!.rows[0] as unknown as WrittenOnLive;
  if (!written.found) throw refuse.missing('order not found');
  if (written.shortfalls.length > 0) throw refuse.issues(written.shortfalls.map((s) => worded(s, naming[s.n - 1]!)));
  if (written.taken.length > 0) await refuseTaken(db, storeId, named);
  // Committed: its deliveries and e-mail are queued now (D32, D42).
  queueAfterCommit(db, eventId, written.subscribers);
  await queueMailAfterCommit(db, written.queuedMail);
  return id;
}

/** A claim the tracking rules file on a package (D54). */
export interface TrackingClaim {
  storeId: string;
  sourceOrderId: string;
  sourceFulfillmentId: string;
  authorEmail: string | null;
  resolutionRequested: string;
  claimType: TClaimType;
  issueType: TIssueType;
  description: string;
  items: readonly Asked[];
}

/**
 * D54: files a tracking claim in the caller's transaction `trx` with the claim statement every
 * filing uses: `INTERNAL`, its items checked against what is left to claim (D39) after the
 * order's lock, `claim/created`, the shopper's e-mail (D42) and the members' notices (D53).
 * Answers the claim's id, or why none was written (order gone, or nothing left to claim).
 */
export async function fileTrackingClaim(trx: Db, t: TrackingClaim): Promise<{ claimId: string } | { refused: string }> {
  const claim: NewClaim = {
    storeId: t.storeId,
    sourceOrderId: t.sourceOrderId,
    claimFiledFrom: 'INTERNAL',
    authorEmail: t.authorEmail as string,
    resolutionRequested: t.resolutionRequested,
    claimCategory: 'SHIPPING',
    salesChannel: 'ONLINE',
    warrantyPeriod: null,
    options: null,
    externalSource: 'tracking',
    offlineDetails: null,
    claimType: t.claimType,
    description: t.description,
    lines: t.items.map((i) => ({
      itemId: i.itemId,
      quantity: i.quantity,
      issueType: t.issueType,
      sourceFulfillmentId: t.sourceFulfillmentId,
      sourceProductId: null,
      sourceVariantId: null,
      details: null,
      images: [],
    })),
    documents: [],
  };
  const { id, eventId, statement } = claimStatement(null, claim, { live: true, asked: t.items });
  await liveOrderLock(t.storeId, t.sourceOrderId, 'no key update').execute(trx);
  const written = (await prepared(statement).execute(trx)).rows[0] as unknown as WrittenOnLive;
  if (!written.found) return { refused: 'the order is gone' };
  if (written.shortfalls.length > 0) return { refused: 'nothing left to claim on the fulfillment (D39)' };
  queueAfterCommit(trx, eventId, written.subscribers);
  await queueMailAfterCommit(trx, written.queuedMail);
  return { claimId: id };
}

/** One issue of a filed claim, with where it sits in the body (for the refusal's paths). */
type Issue = TClaimFile['fulfillmentIssues'][number]['issues'][number] & {
  sourceFulfillmentId: string | null;
  at: number[];
};

/** D23, D39: a shortfall the claim's statement found, as a problem of the issue it names. */
function worded(s: Shortfall, issue: Issue): { path: string; message: string } {
  const path = `body.fulfillmentIssues.${issue.at[0]}.issues.${issue.at[1]}`;
  if (s.ordered === null) return { path: `${path}.sourceItemId`, message: 'not a line item of the order' };
  return {
    path: `${path}.quantity`,
    message: `exceeds what is left to claim of item ${s.itemId}: ${s.claimable} of ${s.ordered} ordered (D39)`,
  };
}

/** The claim a `POST /v1/claims/:sourceOrderId` body files. */
function onlineClaim(storeId: string, sourceOrderId: string, f: TClaimFile, issues: readonly Issue[]): NewClaim {
  return {
    storeId,
    sourceOrderId,
    claimFiledFrom: f.claimFiledFrom ?? 'EXTERNAL',
    authorEmail: f.email,
    resolutionRequested: f.resolution.desiredMethod,
    claimCategory: f.claimCategory,
    salesChannel: f.salesChannel,
    warrantyPeriod: f.resolution.warrantyPeriod ?? null,
    options: f.options ?? null,
    offlineDetails: null,
    lines: issues.map((i) => ({
      itemId: i.sourceItemId ?? null,
      quantity: i.quantity,
      issueType: i.issueType,
      sourceFulfillmentId: i.sourceFulfillmentId,
      sourceProductId: i.sourceProductId ?? null,
      sourceVariantId: i.sourceVariantId ?? null,
      details: i.details ?? null,
      images: i.images ?? [],
    })),
    documents: [
      ...(f.resolution.customerSignature
        ? [{ url: f.resolution.customerSignature, documentType: 'SIGNATURE' as const }]
        : []),
      ...issues.flatMap((i) => (i.images ?? []).map((url) => ({ url, documentType: 'IMAGE' as const }))),
    ],
  };
}

/**
 * `POST /v1/claims/offline` (D23): creates an order `offline_…` for the purchase (in the
 * store's currency, dated the day of purchase, its single item as line item when the item
 * names one) and a `NEW` claim on that item, in one transaction with `claim/created`. A body
 * `storeId` other than the caller's store is refused (400), never used.
 */
export async function fileOfflineClaim(
  db: Db,
  actor: Actor,
  f: TOfflineClaimFile,
): Promise<{ claimId: string; filed: TOfflineClaimFiled }> {
  const { storeId } = actor;
  if (f.storeId != null && f.storeId !== storeId) {
    throw refuse.issues([{ path: 'body.storeId', message: "storeId is not the token's store" }]);
  }
  const sourceOrderId = newId('offline');
  const images = f.items.flatMap((item, i) =>
    (item.images ?? []).map((url, k) => ({ path: `body.items.${i}.images.${k}`, url })),
  );
  return transact(db, async (trx) => {
    // D56: checked with the files locked, so a concurrent claim or message cannot take one between.
    const files = await attachableFiles(trx, storeId, images, null, { lock: true });
    const orderId = await insertOfflineOrder(trx, storeId, sourceOrderId, f);
    const {
      id: claimId,
      eventId,
      statement,
    } = claimStatement(actor.clientId, offlineClaim(storeId, sourceOrderId, f), { orderId, authorName: null });
    const written = (await prepared(statement).execute(trx)).rows[0]!;
    queueAfterCommit(trx, eventId, written.subscribers);
    queueMailAfterCommit(trx, written.queuedMail);
    await attachFiles(trx, claimId, files);
    await prepared(riskStatement(claimId, { eventId, filing: true })).execute(trx);
    return { claimId, filed: offlinePayload(f, storeId, sourceOrderId) };
  });
}

/** The order of an offline filing, with its single item as line item when it names one; answers its id. */
async function insertOfflineOrder(trx: Db, storeId: string, sourceOrderId: string, f: TOfflineClaimFile) {
  const item = f.items[0]!;
  const orderId = newId('ord');
  await sql`
    insert into orders (
      id, store_id, source_order_id, source_order_number, currency, source_created_at, platform_id,
      total, customer_email, customer_phone, customer_name, line_items_known
    )
    select ${orderId}, s.id, ${sourceOrderId}, ${sourceOrderId}, s.currency,
      ${f.warranty.dateOfPurchase}::timestamptz, 'api', ${item.price ?? 0}::numeric,
      ${f.customer.email}, ${f.customer.phoneNumber ?? null},
      ${[f.shippingAddress?.firstName, f.shippingAddress?.lastName].filter(Boolean).join(' ') || null},
      ${item.sourceItemId != null}
    from stores s where s.id = ${storeId}
  `.execute(trx);
  if (item.sourceItemId != null) {
    await trx
      .insertInto('orderLineItems')
      .values({
        orderId,
        sourceItemId: item.sourceItemId,
        position: 0,
        sourceProductId: item.sourceProductId ?? null,
        sourceVariantId: item.sourceVariantId ?? null,
        name: item.name ?? null,
        sku: item.sku ?? null,
        quantity: 1,
        price: item.price ?? null,
        isShippable: null,
      })
      .execute();
  }
  return orderId;
}

/** The claim a `POST /v1/claims/offline` body files, on its single item. */
function offlineClaim(storeId: string, sourceOrderId: string, f: TOfflineClaimFile): NewClaim {
  const item = f.items[0]!;
  return {
    storeId,
    sourceOrderId,
    claimFiledFrom: f.claimFiledFrom ?? 'EXTERNAL',
    authorEmail: f.customer.email,
    resolutionRequested: f.resolution ?? null,
    claimCategory: f.claimCategory,
    salesChannel: f.salesChannel,
    warrantyPeriod: item.warrantyPeriod ?? null,
    options: f.options ?? null,
    offlineDetails: { item, warranty: f.warranty, shippingAddress: f.shippingAddress ?? null },
    lines: [
      {
        itemId: item.sourceItemId ?? null,
        quantity: 1,
        issueType: f.issueType ?? null,
        sourceFulfillmentId: null,
        sourceProductId: item.sourceProductId ?? null,
        sourceVariantId: item.sourceVariantId ?? null,
        details: item.details ?? null,
        images: item.images ?? [],
      },
    ],
    documents: [
      ...(f.signature ? [{ url: f.signature, documentType: 'SIGNATURE' as const }] : []),
      ...(f.warranty.receiptImages ?? []).map((url) => ({ url, documentType: 'RECEIPT' as const })),
      ...(item.images ?? []).map((url) => ({ url, documentType: 'IMAGE' as const })),
    ],
  };
}

/** The spec's echo of an offline filing: every field present, absent ones null. */
function offlinePayload(f: TOfflineClaimFile, storeId: string, sourceOrderId: string): TOfflineClaimFiled {
  const i = f.items[0]!;
  const a = f.shippingAddress;
  return {
    status: 'ok',
    payload: {
      sourceOrderId,
      customer: { email: f.customer.email, phoneNumber: f.customer.phoneNumber ?? null },
      item: {
        sourceProductId: i.sourceProductId ?? null,
        sourceVariantId: i.sourceVariantId ?? null,
        name: i.name ?? null,
        images: i.images ?? null,
        sourceItemId: i.sourceItemId ?? null,
        sku: i.sku ?? null,
        details: i.details ?? null,
        productImage: i.productImage ?? null,
        price: i.price ?? null,
        subIssueId: i.subIssueId ?? null,
        productDescription: i.productDescription ?? null,
        warrantyPeriod: i.warrantyPeriod ?? null,
      },
      warranty: {
        dateOfPurchase: f.warranty.dateOfPurchase,
        receiptRequired: f.warranty.receiptRequired ?? null,
        receiptImages: f.warranty.receiptImages ?? null,
      },
      shippingAddress: a
        ? {
            firstName: a.firstName ?? null,
            lastName: a.lastName ?? null,
            address1: a.address1 ?? null,
            address2: a.address2 ?? null,
            city: a.city ?? null,
            zip: a.zip ?? null,
            country: a.country ?? null,
            state: a.state ?? null,
            stateAbr: a.stateAbr ?? null,
            countryAbr: a.countryAbr ?? null,
            lat: a.lat ?? null,
            lng: a.lng ?? null,
            addressOrigin: a.addressOrigin ?? null,
          }
        : null,
      storeId,
      signature: f.signature ?? null,
      salesChannel: f.salesChannel,
      claimCategory: f.claimCategory,
      issueType: f.issueType ?? null,
      resolution: f.resolution ?? null,
    },
  };
}
