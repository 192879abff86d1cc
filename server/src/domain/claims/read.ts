import {
  CLAIM_QUEUES,
  type TClaim,
  type TClaimConnection,
  type TClaimListNode,
  type TClaimListQuery,
  type TClaimQueue,
  type TClaimRisk,
  type TClaimState,
  type TClaimType,
  type TDenyReason,
  type TIssueType,
  type TResolutionType,
  valuesOf,
} from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database';
import { roundMoney } from '../../lib/money';
import { type KeysetPager, keyset, type PageRange } from '../../lib/pager';
import { refuse } from '../../lib/refusal';
import { type ClaimLinks, viewClaimUrl } from './links';

/**
 * Claim reads (spec "Claim", D24). Every read is ONE query whatever the number of nested
 * rows: the claim row joined to its order and policy, each child list aggregated to JSON by a
 * correlated subquery on its `(claim_id, …)` index. No query per claim or per item.
 */

type Json = Record<string, unknown>;

export interface ClaimRow {
  id: string;
  claimFiledFrom: TClaim['claimFiledFrom'];
  customerId: string | null;
  storeId: string;
  orderId: string;
  sourceOrderId: string;
  sourceOrderNumber: string;
  currency: string;
  authorName: string | null;
  authorEmail: string | null;
  claimDescription: string | null;
  resolutionRequested: TResolutionType | null;
  resolutionDate: Date | null;
  claimState: TClaimState;
  claimType: TClaimType | null;
  claimCategory: TClaim['claimCategory'];
  salesChannel: TClaim['salesChannel'];
  denyReason: TDenyReason | null;
  denyDetails: string | null;
  isOta: boolean;
  otaDescription: string | null;
  externalSource: string | null;
  policyId: string | null;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  linkId: string;
  /** D57: the stored risk, as the risk module last wrote it. */
  riskLevel: TClaimRisk['level'];
  riskSignals: TClaimRisk['signals'];
  /** The row's keyset position with microseconds (lib/pager.ts). */
  keysetAt: string;
  items: Json[];
  messages: Json[];
  resolutions: Json[];
  credits?: Json[];
  documents?: Json[];
  policy?: Json | null;
}

/** The keyset of claim lists (D24). */
const CLAIMS = keyset('c.created_at', 'c.id');

const times = (alias: string) =>
  sql.raw(`'createdAt', ${alias}.created_at, 'updatedAt', ${alias}.updated_at, 'deletedAt', ${alias}.deleted_at`);

/**
 * The select of claims: the list item's fields, plus, for `full`, the record's store credits,
 * documents and policy. `where` and `tail` (order, limit) complete it.
 */
function claimSelect(full: boolean, where: RawBuilder<unknown>, tail: RawBuilder<unknown> = sql``) {
  const record = full
    ? sql`,
      coalesce((
        select json_agg(json_build_object(
          'code', s.code, 'emailStatus', s.email_status, 'emailTime', s.email_time,
          'creditValue', s.credit_value, 'bonusValue', s.bonus_value, 'totalValue', s.total_value,
          'bonus', s.bonus, 'bonusType', s.bonus_type, 'creditCurrency', s.credit_currency,
          'exchangeRate', s.exchange_rate, 'claimId', s.claim_id, ${times('s')}
        ) order by s.created_at, s.code)
        from claim_store_credits s where s.claim_id = c.id
      ), '[]') as credits,
      coalesce((
        select json_agg(json_build_object(
          'id', d.id, 'claimId', d.claim_id, 'url', d.url, 'documentType', d.document_type, ${times('d')}
        ) order by d.position)
        from claim_documents d where d.claim_id = c.id
      ), '[]') as documents,
      case when p.id is null then null else json_build_object(
        'id', p.id, 'customerAmount', p.customer_amount, 'brandAmount', p.brand_amount,
        'insuredAmount', p.insured_amount, 'premiumPaid', p.premium_paid,
        'premiumDiscountedAmount', p.premium_discounted_amount, 'premiumCurrency', p.premium_currency,
        'fundedBy', p.funded_by, 'createdAt', p.created_at, 'updatedAt', p.updated_at,
        'removedAt', p.removed_at, 'deletedAt', p.deleted_at, 'hybridOperator', p.hybrid_operator
      ) end as policy`
    : sql``;
  return sql<ClaimRow>`
    select c.id, c.claim_filed_from, c.customer_id, c.store_id, c.order_id, c.source_order_id,
      o.source_order_number, o.currency, c.author_name, c.author_email, c.claim_description,
      c.resolution_requested, c.resolution_date, c.claim_state, c.claim_type, c.claim_category,
      c.sales_channel, c.deny_reason, c.deny_details, c.is_ota,
      c.ota_description, c.external_source, c.policy_id, c.created_at, c.updated_at, c.deleted_at, c.link_id,
      c.risk_level, c.risk_signals, ${CLAIMS.position} as keyset_at,
      coalesce((
        select json_agg(json_build_object(
          'id', i.id, 'claimId', i.claim_id, 'itemId', i.item_id, 'quantity', i.quantity,
          'issueType', i.issue_type, 'details', i.details, 'images', i.images,
          'sourceFulfillmentId', i.source_fulfillment_id, 'sourceProductId', i.source_product_id,
          'sourceVariantId', i.source_variant_id, 'name', li.name, ${times('i')}
        ) order by i.position)
        from claim_items i
        left join order_line_items li on li.order_id = c.order_id and li.source_item_id = i.item_id
        where i.claim_id = c.id
      ), '[]') as items,
      coalesce((
        select json_agg(json_build_object(
          'senderType', m.sender_type, 'id', m.id, 'claimId', m.claim_id, 'message', m.message,
          'authorName', m.author_name, 'medias', m.medias
        ) order by m.created_at, m.id)
        from claim_messages m where m.claim_id = c.id
      ), '[]') as messages,
      coalesce((
        select json_agg(json_build_object(
          'id', r.id, 'claimId', r.claim_id, 'userId', r.user_id, 'resolutionType', r.resolution_type,
          'resolutionDetails', r.resolution_details, 'paidValue', r.paid_value,
          'paidCurrency', r.paid_currency, 'paidOriginalValue', r.paid_original_value,
          'includeShipping', r.include_shipping, 'shippingAmount', r.shipping_amount,
          'creditStore', r.credit_store, 'claimState', r.claim_state, ${times('r')}
        ) order by r.position)
        from claim_resolutions r where r.claim_id = c.id
      ), '[]') as resolutions
      ${record}
    from claims c
    join orders o on o.id = c.order_id
    ${full ? sql`left join protection_policies p on p.id = c.policy_id` : sql``}
    where ${where}
    ${tail}
  `;
}

// JSON from Postgres: timestamps carry microseconds and an offset; D6 wants ms in UTC.
const iso = (v: unknown) => new Date(v as string).toISOString();
const isoOrNull = (v: unknown) => (v === null || v === undefined ? null : iso(v));
const stamps = (j: Json) => ({
  createdAt: iso(j.createdAt),
  updatedAt: iso(j.updatedAt),
  deletedAt: isoOrNull(j.deletedAt),
});

function items(row: ClaimRow): TClaim['claimItems'] {
  return row.items.map((i) => ({
    id: i.id as string,
    claimId: i.claimId as string,
    itemId: i.itemId as string | null,
    quantity: i.quantity as number,
    issueType: i.issueType as TIssueType | null,
    details: i.details as string | null,
    images: i.images as string[],
    sourceFulfillmentId: i.sourceFulfillmentId as string | null,
    sourceProductId: i.sourceProductId as string | null,
    sourceVariantId: i.sourceVariantId as string | null,
    name: i.name as string | null,
    ...stamps(i),
  }));
}

function common(row: ClaimRow) {
  return {
    id: row.id,
    storeId: row.storeId,
    orderId: row.orderId,
    sourceOrderId: row.sourceOrderId,
    sourceOrderNumber: row.sourceOrderNumber,
    authorName: row.authorName,
    authorEmail: row.authorEmail,
    claimDescription: row.claimDescription,
    claimState: row.claimState,
    isOta: row.isOta,
    otaDescription: row.otaDescription,
    externalSource: row.externalSource,
    claimType: row.claimType,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    deletedAt: row.deletedAt === null ? null : row.deletedAt.toISOString(),
    policyId: row.policyId,
    risk: { level: row.riskLevel, signals: row.riskSignals },
  };
}

function toRecord(row: ClaimRow, links: ClaimLinks): TClaim {
  const money = (v: unknown, currency: unknown = row.currency) =>
    v === null || v === undefined ? null : roundMoney(v as number, currency as string | null);
  return {
    ...common(row),
    claimCategory: row.claimCategory,
    salesChannel: row.salesChannel,
    denyReason: row.denyReason,
    denyDetails: row.denyDetails,
    claimFiledFrom: row.claimFiledFrom,
    customerId: row.customerId,
    resolutionRequested: row.resolutionRequested,
    resolutionDate: row.resolutionDate === null ? null : row.resolutionDate.toISOString(),
    claimItems: items(row),
    claimMessages: row.messages.map((m) => ({
      senderType: m.senderType as 'customer' | 'brand',
      id: m.id as string,
      claimId: m.claimId as string,
      message: m.message as string,
      authorName: m.authorName as string | null,
      medias: m.medias as string[],
    })),
    claimResolutions: row.resolutions.map((r) => ({
      id: r.id as string,
      claimId: r.claimId as string,
      userId: r.userId as string | null,
      resolutionType: r.resolutionType as TResolutionType,
      resolutionDetails: r.resolutionDetails as string | null,
      paidValue: money(r.paidValue, r.paidCurrency ?? row.currency),
      paidCurrency: r.paidCurrency as string | null,
      paidOriginalValue: r.paidOriginalValue as number | null,
      includeShipping: r.includeShipping as boolean,
      shippingAmount: money(r.shippingAmount, r.paidCurrency ?? row.currency),
      creditStore: r.creditStore as boolean,
      ...stamps(r),
    })),
    claimStoreCredits: (row.credits ?? []).map((s) => ({
      code: s.code as string,
      emailStatus: s.emailStatus as TClaim['claimStoreCredits'][number]['emailStatus'],
      emailTime: isoOrNull(s.emailTime),
      creditValue: money(s.creditValue, s.creditCurrency)!,
      bonusValue: money(s.bonusValue, s.creditCurrency)!,
      totalValue: money(s.totalValue, s.creditCurrency)!,
      bonus: s.bonus as number,
      bonusType: s.bonusType as 'NONE' | 'FLAT' | 'PERCENTAGE',
      creditCurrency: s.creditCurrency as string | null,
      exchangeRate: s.exchangeRate as number | null,
      claimId: s.claimId as string,
      ...stamps(s),
    })),
    claimDocuments: (row.documents ?? []).map((d) => ({
      id: d.id as string,
      claimId: d.claimId as string,
      url: d.url as string,
      documentType: d.documentType as 'SIGNATURE' | 'RECEIPT' | 'IMAGE',
      ...stamps(d),
    })),
    policy: policyOf(row, money),
    // D41: the shopper's capability link, rebuilt from the claim's random half and the key.
    viewClaimUrl: viewClaimUrl(links, row.linkId),
  };
}

/** The claim's policy as its record shows it. */
function policyOf(row: ClaimRow, money: (v: unknown, currency?: unknown) => number | null): TClaim['policy'] {
  const p = row.policy ?? null;
  if (p === null) return null;
  return {
    id: p.id as string,
    customerAmount: money(p.customerAmount, p.premiumCurrency)!,
    brandAmount: money(p.brandAmount, p.premiumCurrency)!,
    insuredAmount: money(p.insuredAmount, p.premiumCurrency)!,
    premiumPaid: money(p.premiumPaid, p.premiumCurrency)!,
    premiumDiscountedAmount: money(p.premiumDiscountedAmount, p.premiumCurrency)!,
    premiumCurrency: p.premiumCurrency as string | null,
    fundedBy: p.fundedBy as 'customer' | 'brand',
    claim: { id: row.id, claimState: row.claimState },
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
    removedAt: isoOrNull(p.removedAt),
    deletedAt: isoOrNull(p.deletedAt),
    hybridOperator: p.hybridOperator as 'AND' | 'OR',
  };
}

function toListNode(row: ClaimRow): TClaimListNode {
  return {
    ...common(row),
    claimResolutions: row.resolutions.map((r) => ({
      id: r.id as string,
      claimId: r.claimId as string,
      resolution: r.resolutionType as TResolutionType,
      claimState: r.claimState as TClaimState,
      ...stamps(r),
    })),
    claimItems: items(row),
    claimMessages: row.messages.map((m) => ({
      id: m.id as string,
      claimId: m.claimId as string,
      message: m.message as string,
      authorName: m.authorName as string | null,
      medias: m.medias as string[],
    })),
  };
}

/** `GET /v1/claims/:claimId` (D24): the claim record of the store, in one query; refused (404) when missing. */
export async function readClaim(db: Db, storeId: string, claimId: string, links: ClaimLinks): Promise<TClaim> {
  const { rows } = await claimSelect(true, sql`c.store_id = ${storeId} and c.id = ${claimId}`).execute(db);
  if (!rows[0]) throw refuse.missing('claim not found');
  return toRecord(rows[0], links);
}

/**
 * `GET /v1/orders/:sourceOrderId/claims`: the records of the claims filed against the live
 * order, oldest first; refused (404) when the store has no such live order. One query.
 */
export async function readOrderClaims(
  db: Db,
  storeId: string,
  sourceOrderId: string,
  links: ClaimLinks,
): Promise<TClaim[]> {
  const { rows } = await sql<ClaimRow & { found: boolean }>`
    with live as (
      select id from orders where store_id = ${storeId} and source_order_id = ${sourceOrderId} and deleted_at is null
    ), claim_rows as (
      ${claimSelect(true, sql`c.order_id = (select id from live)`)}
    )
    select true as found, claim_rows.* from live left join claim_rows on true
    order by claim_rows.created_at, claim_rows.id
  `.execute(db);
  if (rows.length === 0) throw refuse.missing('order not found');
  return rows.filter((r) => r.id !== null).map((r) => toRecord(r, links));
}

/** The list's filters (D24, D51), as `claimPageQuery` reads them. */
export type ClaimFilters = Omit<TClaimListQuery, 'first' | 'after' | 'last' | 'before'>;

/**
 * The states a list asks for as one tab when they are exactly a tab's (D51), so the tab's
 * index serves them; else the states themselves.
 */
function stateFilter(q: ClaimFilters): { queue: TClaimQueue } | { states: readonly TClaimState[] } | undefined {
  if (q.queue) return { queue: q.queue };
  const states = valuesOf(q.claimState);
  if (!states) return undefined;
  const asked = new Set(states);
  const tab = (Object.keys(CLAIM_QUEUES) as TClaimQueue[]).find(
    (t) => CLAIM_QUEUES[t].length === asked.size && CLAIM_QUEUES[t].every((s) => asked.has(s)),
  );
  return tab ? { queue: tab } : { states: [...asked] };
}

/**
 * D51: the claims a search names exactly: the claim of that id, the claims on the store's
 * orders of that number (deleted orders too: their claims remain), the claims of that
 * shopper's e-mail (in any case). An array, so the page reads those few claims by their key
 * and sorts them, whatever the store holds.
 */
const searched = (storeId: string, q: string) => sql`array(
  select id from claims where store_id = ${storeId} and id = ${q}
  union
  select c2.id from orders o2 join claims c2 on c2.order_id = o2.id
  where o2.store_id = ${storeId} and o2.source_order_number = ${q}
  union
  select id from claims where store_id = ${storeId} and lower(author_email) = lower(${q})
)`;

/**
 * The keyset query of one list page: the store's claims matching the filters in the range
 * (lib/pager.ts). Exported so the benchmark and the plan test can EXPLAIN exactly what the
 * list runs. A tab is `claim_queue(claim_state)`, the expression of the tabs' page index
 * (migration `claims-workspace`).
 */
export function claimPageQuery(storeId: string, q: ClaimFilters, range: PageRange) {
  const where = claimFilterConditions(storeId, q);
  where.push(...CLAIMS.bounds(range));
  return claimSelect(false, sql.join(where, sql` and `), CLAIMS.order(range));
}

/**
 * A claim as the export prints it (D52): the columns of CLAIM_EXPORT_COLUMNS only, its items
 * already written as the CSV cell, its resolutions as `[type, paidValue, paidCurrency]`.
 */
export interface ClaimExportRow {
  id: string;
  createdAt: Date;
  claimState: TClaimState;
  claimType: TClaimType | null;
  sourceOrderId: string;
  sourceOrderNumber: string;
  currency: string;
  authorName: string | null;
  authorEmail: string | null;
  /** `<quantity> x <name or item id> (<issue type>)` joined by `; `. */
  items: string;
  resolutions: [TResolutionType, number | null, string | null][];
  keysetAt: string;
}

/**
 * The list's page (the same filters, store, order and keyset) with only what the export
 * prints: no messages, no other item or resolution fields, no JSON objects to build and
 * parse. The items and resolutions are the list's (the same rows, the same order).
 */
export function claimExportPageQuery(storeId: string, q: ClaimFilters, range: PageRange) {
  const where = claimFilterConditions(storeId, q);
  where.push(...CLAIMS.bounds(range));
  return sql<ClaimExportRow>`
    select c.id, c.created_at, c.claim_state, c.claim_type, c.source_order_id, o.source_order_number,
      o.currency, c.author_name, c.author_email, ${CLAIMS.position} as keyset_at,
      coalesce((
        select string_agg(
          coalesce(i.quantity, 1)::text || ' x ' || coalesce(li.name, i.item_id, 'item')
            || coalesce(' (' || i.issue_type || ')', ''),
          '; ' order by i.position)
        from claim_items i
        left join order_line_items li on li.order_id = c.order_id and li.source_item_id = i.item_id
        where i.claim_id = c.id
      ), '') as items,
      coalesce((
        select json_agg(json_build_array(r.resolution_type, r.paid_value, r.paid_currency) order by r.position)
        from claim_resolutions r where r.claim_id = c.id
      ), '[]') as resolutions
    from claims c
    join orders o on o.id = c.order_id
    where ${sql.join(where, sql` and `)}
    ${CLAIMS.order(range)}
  `;
}

/** The conditions on `claims c` of the store's claims matching the list's filters (D24, D51). */
export function claimFilterConditions(storeId: string, q: ClaimFilters): RawBuilder<unknown>[] {
  const where = [sql`c.store_id = ${storeId}`];
  const states = stateFilter(q);
  if (states && 'queue' in states) where.push(sql`claim_queue(c.claim_state) = ${states.queue}`);
  else if (states?.states.length === 1) where.push(sql`c.claim_state = ${states.states[0]}`);
  else if (states) where.push(sql`c.claim_state = any(${states.states}::text[])`);
  if (q.claimType) where.push(sql`c.claim_type = ${q.claimType}`);
  if (q.q) where.push(sql`c.id = any(${searched(storeId, q.q)})`);
  if (q.sourceOrderId) where.push(sql`c.source_order_id = ${q.sourceOrderId}`);
  if (q.createdAtMin) where.push(sql`c.created_at >= ${q.createdAtMin}::timestamptz`);
  if (q.createdAtMax) where.push(sql`c.created_at <= ${q.createdAtMax}::timestamptz`);
  if (q.updatedAtMin) where.push(sql`c.updated_at >= ${q.updatedAtMin}::timestamptz`);
  const levels = valuesOf(q.risk);
  // D57: one level is one range scan of `claims_store_risk_page_idx`.
  if (levels?.length === 1) where.push(sql`c.risk_level = ${levels[0]}`);
  else if (levels) where.push(sql`c.risk_level = any(${[...new Set(levels)]}::text[])`);
  return where;
}

/** What a list cursor is bound to (cursor.ts): this list, the store, every filter and the order, normalised. */
export function claimListBinding(storeId: string, q: ClaimFilters): string {
  const time = (t: string | undefined) => (t ? new Date(t).toISOString() : null);
  return JSON.stringify([
    'claims',
    storeId,
    q.claimState ? [...new Set(valuesOf(q.claimState))].sort() : null,
    q.sourceOrderId ?? null,
    time(q.createdAtMin),
    time(q.createdAtMax),
    time(q.updatedAtMin),
    q.queue ?? null,
    q.q ?? null,
    q.claimType ?? null,
    q.order ?? 'asc',
    q.risk ? [...new Set(valuesOf(q.risk))].sort() : null,
  ]);
}

/** D51: the list's filters that cannot go together answer 400, in the D2 shape. */
export function checkFilters(q: ClaimFilters): void {
  const issues = [];
  if (q.queue && q.claimState)
    issues.push({ path: 'query.claimState', message: 'cannot be combined with queue: a tab names its states (D51)' });
  if (q.createdAtMin && q.createdAtMax && new Date(q.createdAtMin) > new Date(q.createdAtMax))
    issues.push({ path: 'query.createdAtMax', message: 'must not be before createdAtMin' });
  if (issues.length > 0) throw refuse.issues(issues);
}

/**
 * `GET /v1/claims` (D24, D51): one keyset page of the store's claims in `(createdAt, id)`
 * order, oldest or newest first (lib/pager.ts), its cursors bound to the store, the filters
 * and the order. Every tab and the type filter have an index with the store as its prefix, so
 * a page is one range scan at any depth; a search reads only the claims it names. Rows filed
 * while a client pages sort by their own creation time, so a client never sees a claim twice
 * and never misses one that existed when it started.
 */
export function listClaims(db: Db, pager: KeysetPager, storeId: string, q: TClaimListQuery): Promise<TClaimConnection> {
  checkFilters(q);
  return pager.page(q, claimListBinding(storeId, q), {
    rows: async (range) => (await claimPageQuery(storeId, q, range).execute(db)).rows,
    position: (row) => ({ createdAt: row.keysetAt, id: row.id }),
    nodes: (rows) => rows.map(toListNode),
    descending: q.order === 'desc',
  });
}
