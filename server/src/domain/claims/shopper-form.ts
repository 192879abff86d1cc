import type { TIssueType, TResolutionType } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { deriveKey, equalBytes, hmacSha256 } from '../../lib/crypto';
import { claimableItems } from '../commerce/claimable';
import { photosRequiredFor } from '../partner/settings';
import { fileClaim } from './filing';
import { type ClaimLinks, viewClaimUrl } from './links';

/**
 * The shopper's claim form (D56): a store known by its domain, an order found by its number
 * and its customer's e-mail (any case), what is left to claim of its lines (D39), and the
 * claim filed through the one claim statement as an `EXTERNAL` claim from `shopper`.
 *
 * A pair that finds no order is a miss: misses are counted per store and order number in the
 * rate limiter's table (`rate_limit_counters`, shared by every process, D4), and 5 within an
 * hour lock that number for an hour, during which even the right e-mail finds nothing.
 */

/** D56: misses of one store and order number that lock it, and for how long. */
export const MISSES_BEFORE_LOCK = 5;
const LOCK_SECONDS = 3600;

/** A store the form is for, found by its domain. */
export interface FormStore {
  id: string;
  name: string;
  domain: string;
}

export async function storeByDomain(db: Db, domain: string): Promise<FormStore | undefined> {
  const wanted = domain.trim().toLowerCase();
  if (wanted === '' || wanted.length > 255) return undefined;
  return db
    .selectFrom('stores')
    .select(['id', 'name', 'domain'])
    .where(sql`lower(domain)`, '=', wanted)
    .orderBy('createdAt')
    .limit(1)
    .executeTakeFirst();
}

/** An order number as a shopper may type it: with or without the leading `#`, any spaces around. */
function numberKey(orderNumber: string): string {
  return orderNumber.trim().replace(/^#/, '').toLowerCase();
}

const missKey = (storeId: string, orderNumber: string) => `claim-form-miss:${storeId}:${numberKey(orderNumber)}`;
const lockKey = (storeId: string, orderNumber: string) => `claim-form-lock:${storeId}:${numberKey(orderNumber)}`;

/** Whether the store's order number is locked: its lock row is less than an hour old. */
async function isLocked(db: Db, storeId: string, orderNumber: string): Promise<boolean> {
  const row = await db
    .selectFrom('rateLimitCounters')
    .select('key')
    .where('key', '=', lockKey(storeId, orderNumber))
    .where('windowStart', '>', sql<Date>`now() - make_interval(secs => ${LOCK_SECONDS})`)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Counts a miss in this minute's row of the number, and locks the number (a row dated now)
 * once the misses of the last hour reach the limit. The limiter's flush deletes rows an hour
 * old, so a lock and the misses behind it end together.
 */
async function countMiss(db: Db, storeId: string, orderNumber: string): Promise<void> {
  const key = missKey(storeId, orderNumber);
  const lock = lockKey(storeId, orderNumber);
  await sql`
    with counted as (
      insert into rate_limit_counters (key, window_start, count)
      values (${key}, date_trunc('minute', now()), 1)
      on conflict (key, window_start) do update set count = rate_limit_counters.count + 1
      returning count, window_start
    ), total as (
      select coalesce(sum(r.count), 0) + (select count from counted) as misses
      from rate_limit_counters r
      where r.key = ${key} and r.window_start > now() - make_interval(secs => ${LOCK_SECONDS})
        and r.window_start <> (select window_start from counted)
    )
    insert into rate_limit_counters (key, window_start, count)
    select ${lock}, now(), 1 from total where misses >= ${MISSES_BEFORE_LOCK}
    on conflict (key, window_start) do nothing
  `.execute(db);
}

/** An order the form found: what its second step shows and files against. */
export interface FoundOrder {
  orderId: string;
  sourceOrderId: string;
  orderNumber: string;
  customerEmail: string;
  lines: { itemId: string; name: string | null; ordered: number; claimable: number }[];
  resolutions: TResolutionType[];
  photosRequiredFor: TIssueType[];
}

/**
 * The order of the store with this number whose customer e-mail is this one (any case), or
 * undefined, whatever was wrong: no such number, another e-mail, or a locked number. Each
 * undefined answer but a locked number's counts as a miss.
 */
export async function findShopperOrder(
  db: Db,
  storeId: string,
  orderNumber: string,
  email: string,
): Promise<FoundOrder | undefined> {
  if (await isLocked(db, storeId, orderNumber)) return undefined;
  const number = orderNumber.trim();
  const order =
    number === '' || email.trim() === ''
      ? undefined
      : await db
          .selectFrom('orders')
          .select(['id', 'sourceOrderId', 'sourceOrderNumber', 'customerEmail'])
          .where('storeId', '=', storeId)
          .where('deletedAt', 'is', null)
          .where('sourceOrderNumber', 'in', [...new Set([number, number.replace(/^#/, ''), `#${number}`])])
          .where(sql`lower(customer_email)`, '=', email.trim().toLowerCase())
          .orderBy('sourceCreatedAt', 'desc')
          .limit(1)
          .executeTakeFirst();
  if (!order) {
    await countMiss(db, storeId, orderNumber);
    return undefined;
  }
  return orderForForm(db, storeId, order.id);
}

/** The order `orderId` of the store as the form's second step shows it. */
export async function orderForForm(db: Db, storeId: string, orderId: string): Promise<FoundOrder | undefined> {
  const order = await db
    .selectFrom('orders')
    .innerJoin('merchantSettings as ms', 'ms.storeId', 'orders.storeId')
    .select([
      'orders.id',
      'sourceOrderId',
      'sourceOrderNumber',
      'customerEmail',
      'ms.offerStoreCreditOnServicePurchase',
    ])
    .where('orders.storeId', '=', storeId)
    .where('orders.id', '=', orderId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  if (!order) return undefined;
  const lines = await sql<{
    itemId: string;
    name: string | null;
    ordered: number;
    claimable: number;
    position: number;
  }>`
    select k.item_id, li.name, k.ordered, k.claimable, li.position
    from (${claimableItems(sql`${orderId}`)}) k
    join order_line_items li on li.order_id = ${orderId} and li.source_item_id = k.item_id
    order by li.position
  `.execute(db);
  return {
    orderId: order.id,
    sourceOrderId: order.sourceOrderId,
    orderNumber: order.sourceOrderNumber,
    customerEmail: order.customerEmail ?? '',
    lines: lines.rows.map(({ position: _p, ...line }) => line),
    // D56: the resolutions the store offers; store credit only where the store offers it (D26).
    resolutions: ['REFUND', 'RESHIP', ...(order.offerStoreCreditOnServicePurchase ? ['STORE_CREDIT' as const] : [])],
    photosRequiredFor: await photosRequiredFor(db, storeId),
  };
}

/**
 * What proves a browser found an order (D56): the store, the order and the browser session it
 * was found in, with an expiry, under a key of its own. The form's second step and its photo
 * uploads carry it, so they need no second lookup; another session's pass opens nothing.
 */
export interface OrderPass {
  storeId: string;
  orderId: string;
}

const PASS_SECONDS = 2 * 3600;

export function orderPass(secretKey: Buffer, pass: OrderPass, sessionId: string, nowMs = Date.now()): string {
  const body = Buffer.from(
    JSON.stringify({ s: pass.storeId, o: pass.orderId, exp: Math.floor(nowMs / 1000) + PASS_SECONDS }),
  ).toString('base64url');
  return `${body}.${passMac(secretKey, body, sessionId)}`;
}

function passMac(secretKey: Buffer, body: string, sessionId: string): string {
  return hmacSha256(deriveKey(secretKey, 'claim-form-pass'), `${sessionId}.${body}`).toString('base64url');
}

/** The pass's order when it is genuine, of this session and store, and not expired. */
export function passedOrder(
  secretKey: Buffer,
  presented: unknown,
  sessionId: string,
  storeId: string,
  nowMs = Date.now(),
): string | undefined {
  if (typeof presented !== 'string' || presented.length > 1000) return undefined;
  const [body, mac] = presented.split('.');
  if (!body || !mac) return undefined;
  if (!equalBytes(Buffer.from(mac), Buffer.from(passMac(secretKey, body, sessionId)))) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
      s?: unknown;
      o?: unknown;
      exp?: unknown;
    };
    if (claims.s !== storeId || typeof claims.o !== 'string' || typeof claims.exp !== 'number') return undefined;
    return claims.exp * 1000 > nowMs ? claims.o : undefined;
  } catch {
    return undefined;
  }
}

/** One line the shopper claims. */
export interface ShopperLine {
  itemId: string;
  quantity: number;
  issueType: TIssueType;
  details: string | null;
  images: string[];
}

/**
 * Files the shopper's claim through the one claim statement (D23, D39, D42, the webhooks and
 * the audit as any claim): `EXTERNAL`, from `shopper`, by the order's customer e-mail.
 * Answers the claim's page (D41). Refusals are the claim statement's (400 shortfalls, 422
 * files of another store or claim).
 */
export async function fileShopperClaim(
  db: Db,
  links: ClaimLinks,
  storeId: string,
  order: FoundOrder,
  claim: { resolution: TResolutionType; lines: ShopperLine[] },
): Promise<string> {
  const claimId = await fileClaim(
    db,
    { storeId, clientId: null, userId: null },
    order.sourceOrderId,
    {
      email: order.customerEmail,
      salesChannel: 'ONLINE',
      claimCategory: 'SHIPPING',
      fulfillmentIssues: [
        {
          issues: claim.lines.map((l) => ({
            issueType: l.issueType,
            quantity: l.quantity,
            sourceItemId: l.itemId,
            details: l.details,
            images: l.images,
          })),
        },
      ],
      resolution: { desiredMethod: claim.resolution },
      claimFiledFrom: 'EXTERNAL',
    },
    'shopper',
  );
  const row = await db.selectFrom('claims').select('linkId').where('id', '=', claimId).executeTakeFirstOrThrow();
  return viewClaimUrl(links, row.linkId);
}
