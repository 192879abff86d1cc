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
import { claimedByItem, leftToClaim } from '../commerce/claimable';
import { liveOrderLock } from '../commerce/live-order';
import { claimMailSteps, queueMailAfterCommit } from '../mail/outbox';
import { eventSteps, queueAfterCommit } from '../webhooks/record';
import type { Actor } from './moves';

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
}

/**
 * The order a claim is written on: one just written (`orderId`, the offline filing), or the
 * store's live order `sourceOrderId` read by the statement itself, which then writes the claim
 * only if what it asks of the order's items fits what is left to claim (D39).
 */
type ClaimOn =
  | { orderId: string; authorName: string | null }
  | { live: true; asked: readonly { itemId: string; quantity: number }[] };

/** What the claim's statement answers. */
interface Written {
  /** The claim was written (else nothing was). */
  filed: boolean;
  subscribers: string[];
  queuedMail: string[];
}
/** ... and, filed on a live order, what the check read of it. */
type WrittenOnLive = Written & Claimable & { found: boolean; lineItemsKnown: boolean | null };

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
 * it reads the order and what may be claimed of it (`claimableSql`), links the order's active
 * policy, and writes nothing unless the claim fits; else the claim has no policy. Hand its
 * answer's `subscribers` and `queuedMail` to the after-commit queues.
 */
function claimStatement(clientId: string, c: NewClaim, on: ClaimOn) {
  const id = newId('clm');
  const details = c.lines.flatMap((l) => (l.details ? [l.details] : [])).join('\n\n') || null;
  const claimType = claimTypeOf(c.lines);
  const items = c.lines.map((l) => ({ ...l, id: newId('cli') }));
  const col = <T>(f: (l: (typeof items)[number]) => T) => items.map(f);
  const docs = c.documents.map((d) => ({ ...d, id: newId('cld') }));
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
      },
    },
    sql`claim`,
  );
  const mail = claimMailSteps({ storeId: c.storeId, clientId, claimId: id, notice: 'claim_filed' }, sql`claim`);
  const live = 'live' in on;
  // `source`: the order, its author and its policy, one row when the claim is to be written.
  const source = live
    ? sql`live_order as (
        select o.id, o.line_items_known, o.customer_name from orders o
        where o.store_id = ${c.storeId} and o.source_order_id = ${c.sourceOrderId} and o.deleted_at is null
      ), claimable as (${claimableSql(
        sql`(select id from live_order)`,
        on.asked.map((a) => a.itemId),
      )}), asked as (
        select a.item_id, sum(a.quantity) as quantity
        from unnest(${on.asked.map((a) => a.itemId)}::text[], ${on.asked.map((a) => a.quantity)}::int[]) a (item_id, quantity)
        group by a.item_id
      ), source as (
        select o.id as order_id, o.customer_name as author_name, claimable.policy_id
        from live_order o, claimable
        where not o.line_items_known or not exists (
          select 1 from asked a
          where (claimable.ordered ->> a.item_id) is null
            or a.quantity > ${leftToClaim(sql`(claimable.ordered ->> a.item_id)::int`, sql`(claimable.claimed ->> a.item_id)::int`)}
        )
      )`
    : sql`source as (select ${on.orderId}::text as order_id, ${on.authorName}::text as author_name, null::text as policy_id)`;
  const statement = sql<Written>`
    with ${source}, claim as (
      insert into claims (
        id, store_id, order_id, source_order_id, policy_id, claim_filed_from, author_name, author_email,
        claim_description, resolution_requested, claim_type, claim_category, sales_channel,
        warranty_period, options, offline_details
      )
      select ${id}, ${c.storeId}, s.order_id, ${c.sourceOrderId}, s.policy_id,
        ${c.claimFiledFrom}, s.author_name, ${c.authorEmail}, ${details}, ${c.resolutionRequested}, ${claimType},
        ${c.claimCategory}, ${c.salesChannel}, ${c.warrantyPeriod},
        ${c.options == null ? null : JSON.stringify(c.options)}::jsonb,
        ${c.offlineDetails == null ? null : JSON.stringify(c.offlineDetails)}::jsonb
      from source s
      returning id, store_id, author_email
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
    ), ${event.steps}, ${mail}
    select exists (select 1 from claim) as filed,
      array(select client_id from fanned) as subscribers, array(select id from mail where queued) as queued_mail
      ${
        live
          ? sql`, exists (select 1 from live_order) as found, (select line_items_known from live_order),
              claimable.policy_id, claimable.ordered, claimable.claimed from claimable`
          : sql``
      }
  `;
  return { id, eventId: event.id, statement };
}

/**
 * `POST /v1/claims/:sourceOrderId` (D22, D23, D39): files a `NEW` claim against the store's
 * live order. When the order's line items are known, every issue's `sourceItemId` must name
 * one, and the quantities claimed per item may not exceed what is left to claim: the ordered
 * quantity less the item's quantities in the order's other claims, refused claims excepted
 * (`issues`, 400). The claim links the order's active policy, or none.
 *
 * One transaction in one round trip (`inOneTrip`): the order row is locked first, `for no key
 * update` by a claim that names items, so concurrent such filings on one order run one after
 * the other and of two claims on its last unit exactly one is filed; either lock keeps a
 * concurrent PUT from swapping the line items (or a DELETE from ending the order) before the
 * claim is written. The claim's statement, the next, reads with a snapshot taken once the lock
 * was granted, so it counts every claim committed before; it writes the claim only if it fits
 * and answers what it read, from which a refusal names every problem.
 */
export async function fileClaim(db: Db, actor: Actor, sourceOrderId: string, f: TClaimFile): Promise<string> {
  const { storeId } = actor;
  const issues: Issue[] = f.fulfillmentIssues.flatMap((fi, i) =>
    fi.issues.map((issue, j) => ({ ...issue, sourceFulfillmentId: fi.sourceFulfillmentId ?? null, at: [i, j] })),
  );
  // Only the items a claim names are counted (D39); a claim naming none takes a share lock
  // and files beside others.
  const asked = issues.flatMap((i) => (i.sourceItemId ? [{ itemId: i.sourceItemId, quantity: i.quantity }] : []));
  const { id, eventId, statement } = claimStatement(
    actor.clientId,
    {
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
    },
    { live: true, asked },
  );
  const lock = liveOrderLock(storeId, sourceOrderId, asked.length > 0 ? 'no key update' : 'share');
  const results = await inOneTrip(db, [lock, statement], { genericPlans: true });
  const written = results.at(-1)!.rows[0] as unknown as WrittenOnLive;
  if (!written.found) throw refuse.missing('order not found');
  if (!written.filed) {
    checkClaimable(issues, written);
    throw new Error('a claim that fits what is left to claim was not written');
  }
  // Committed: its deliveries and e-mail are queued now (D32, D42).
  queueAfterCommit(db, eventId, written.subscribers);
  await queueMailAfterCommit(db, written.queuedMail);
  return id;
}

/** One issue of a filed claim, with where it sits in the body (for the refusal's paths). */
type Issue = TClaimFile['fulfillmentIssues'][number]['issues'][number] & {
  sourceFulfillmentId: string | null;
  at: number[];
};

interface Claimable {
  policyId: string | null;
  /** Ordered quantity per line item. */
  ordered: Record<string, number>;
  /** Quantity in the order's other claims, refused ones excepted, per item of `itemIds` (D39). */
  claimed: Record<string, number>;
}

/**
 * What a claim on the locked order `orderId` (an expression) may ask for (one row), read in a
 * statement after the lock's so that its snapshot sees every claim committed before the lock
 * was granted. The claim written by the same statement is not in its snapshot, so it does not
 * count itself.
 */
function claimableSql(orderId: RawBuilder<unknown>, itemIds: readonly string[]) {
  return sql<Claimable>`
    select
      (select p.id from protection_policies p where p.order_id = ${orderId} and p.removed_at is null) as policy_id,
      coalesce((
        select json_object_agg(li.source_item_id, li.quantity) from order_line_items li
        where li.order_id = ${orderId}
      ), '{}') as ordered,
      ${
        itemIds.length > 0
          ? sql`coalesce((
              select json_object_agg(t.item_id, t.quantity) from (${claimedByItem(orderId, itemIds)}) t
            ), '{}')`
          : sql`'{}'::json`
      } as claimed
  `;
}

/**
 * D23, D39: every item an issue names is a line item of the order, and the quantities asked
 * per item fit in what is left to claim of it. Refuses with every problem at once.
 */
function checkClaimable(issues: readonly Issue[], order: Claimable): void {
  const problems: { path: string; message: string }[] = [];
  const asked = new Map<string, number>();
  for (const issue of issues) {
    if (!issue.sourceItemId) continue;
    const path = `body.fulfillmentIssues.${issue.at[0]}.issues.${issue.at[1]}`;
    const ordered = order.ordered[issue.sourceItemId];
    if (ordered === undefined) {
      problems.push({ path: `${path}.sourceItemId`, message: 'not a line item of the order' });
      continue;
    }
    const total = (asked.get(issue.sourceItemId) ?? 0) + issue.quantity;
    asked.set(issue.sourceItemId, total);
    const left = Math.max(0, ordered - (order.claimed[issue.sourceItemId] ?? 0));
    if (total > left)
      problems.push({
        path: `${path}.quantity`,
        message: `exceeds what is left to claim of item ${issue.sourceItemId}: ${left} of ${ordered} ordered (D39)`,
      });
  }
  if (problems.length > 0) throw refuse.issues(problems);
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
  const item = f.items[0]!;
  const sourceOrderId = newId('offline');
  return transact(db, async (trx) => {
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
    const {
      id: claimId,
      eventId,
      statement,
    } = claimStatement(
      actor.clientId,
      {
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
      },
      { orderId, authorName: null },
    );
    const written = (await prepared(statement).execute(trx)).rows[0]!;
    queueAfterCommit(trx, eventId, written.subscribers);
    queueMailAfterCommit(trx, written.queuedMail);
    return { claimId, filed: offlinePayload(f, storeId, sourceOrderId) };
  });
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
