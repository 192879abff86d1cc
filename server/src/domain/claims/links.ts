import type { TClaimState, TResolutionType } from '@protection-service/contract';
import type { Db } from '../../db/database';
import { type CapabilityLinks, capabilityLinks, linkIdOf, linkToken } from '../../lib/capability-links';
import { roundMoney } from '../../lib/money';
import { postMessage } from './moves';

/**
 * The shopper's claim link (D41): `<PUBLIC_BASE_URL>/claims/view/<token>`, where the token is
 * the claim's random `link_id` (244 bits, migrations/20261124010000-claim-links.ts) followed by
 * a MAC of it under a key derived from SECRET_KEY. The database holds only the random half, so
 * a dump opens no page; the token says nothing of the claim id; the server rebuilds the link
 * whenever it shows a claim record.
 */

/** What builds and checks claim links: the derived key and the public base URL. */
export type ClaimLinks = CapabilityLinks;

export function claimLinks(secretKey: Buffer, publicBaseUrl: string): ClaimLinks {
  return capabilityLinks(secretKey, 'claim-link', publicBaseUrl);
}

/** The claim's `viewClaimUrl` (D41). */
export function viewClaimUrl(links: ClaimLinks, linkId: string): string {
  return `${links.baseUrl}/claims/view/${linkToken(links, linkId)}`;
}

export { linkIdOf };

/** What the shopper's page shows (D41): never the claim id, the store id or another claim. */
export interface ClaimPageView {
  storeName: string;
  orderNumber: string;
  claimState: TClaimState;
  filedAt: Date;
  items: { name: string | null; itemId: string | null; quantity: number }[];
  messages: {
    senderType: 'customer' | 'brand';
    authorName: string | null;
    message: string;
    createdAt: Date;
    /** D56: the photos the message carries, the service's own files shown by their links. */
    medias: string[];
  }[];
  /** D56: whether the shopper may still add photos. */
  open: boolean;
  resolutions: {
    type: TResolutionType;
    details: string | null;
    paidValue: number | null;
    paidCurrency: string | null;
  }[];
  storeCredits: { code: string; totalValue: number; currency: string | null }[];
}

interface LinkedClaim {
  id: string;
  storeId: string;
  authorEmail: string | null;
}

async function findLinkedClaim(db: Db, linkId: string): Promise<LinkedClaim | undefined> {
  return db
    .selectFrom('claims')
    .select(['id', 'storeId', 'authorEmail'])
    .where('linkId', '=', linkId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
}

/** The page of the claim a link opens, or undefined for an unknown or deleted claim (404). */
export async function claimPage(db: Db, linkId: string): Promise<ClaimPageView | undefined> {
  const claim = await db
    .selectFrom('claims as c')
    .innerJoin('orders as o', 'o.id', 'c.orderId')
    .innerJoin('stores as s', 's.id', 'c.storeId')
    .select(['c.id', 'c.orderId', 'c.claimState', 'c.createdAt', 'o.sourceOrderNumber', 'o.currency', 's.name'])
    .where('c.linkId', '=', linkId)
    .where('c.deletedAt', 'is', null)
    .executeTakeFirst();
  if (!claim) return undefined;
  const [items, messages, resolutions, credits] = await Promise.all([
    db
      .selectFrom('claimItems as i')
      .leftJoin('orderLineItems as l', (j) =>
        j.on('l.orderId', '=', claim.orderId).onRef('l.sourceItemId', '=', 'i.itemId'),
      )
      .select(['i.itemId', 'i.quantity', 'l.name'])
      .where('i.claimId', '=', claim.id)
      .orderBy('i.position')
      .execute(),
    db
      .selectFrom('claimMessages')
      .select(['senderType', 'authorName', 'message', 'createdAt', 'medias'])
      .where('claimId', '=', claim.id)
      .orderBy('createdAt')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('claimResolutions')
      .select(['resolutionType', 'resolutionDetails', 'paidValue', 'paidCurrency'])
      .where('claimId', '=', claim.id)
      .orderBy('position')
      .execute(),
    db
      .selectFrom('claimStoreCredits')
      .select(['code', 'totalValue', 'creditCurrency'])
      .where('claimId', '=', claim.id)
      .where('deletedAt', 'is', null)
      .orderBy('createdAt')
      .execute(),
  ]);
  return {
    storeName: claim.name,
    orderNumber: claim.sourceOrderNumber,
    claimState: claim.claimState as TClaimState,
    filedAt: claim.createdAt,
    items: items.map((i) => ({ name: i.name ?? null, itemId: i.itemId, quantity: i.quantity })),
    messages: messages.map((m) => ({
      ...m,
      senderType: m.senderType as 'customer' | 'brand',
      medias: Array.isArray(m.medias) ? (m.medias as unknown[]).filter((u): u is string => typeof u === 'string') : [],
    })),
    open: isOpen(claim.claimState as TClaimState),
    resolutions: resolutions.map((r) => {
      const currency = r.paidCurrency ?? claim.currency;
      return {
        type: r.resolutionType as TResolutionType,
        details: r.resolutionDetails,
        paidValue: r.paidValue === null ? null : roundMoney(Number(r.paidValue), currency),
        paidCurrency: r.paidValue === null ? null : currency,
      };
    }),
    storeCredits: credits.map((s) => ({
      code: s.code,
      totalValue: roundMoney(Number(s.totalValue), s.creditCurrency),
      currency: s.creditCurrency,
    })),
  };
}

/** D56: the states in which a claim is over for the shopper: no photo is added any more. */
const FINISHED_STATES: readonly TClaimState[] = [
  'APPROVED',
  'DENIED',
  'DISMISSED',
  'RESOLVED',
  'RESOLVED_BY_BRAND',
  'CLOSED',
  'ARCHIVED',
];

export function isOpen(state: TClaimState): boolean {
  return !FINISHED_STATES.includes(state);
}

/** D41: the longest message the page accepts. */
export const SHOPPER_MESSAGE_MAX = 5000;

/**
 * The shopper's message (D41): a D25 message with `senderType` `customer` and the claimant's
 * e-mail as author, in the same transaction as its `message/created` event. False when the
 * link opens no claim.
 */
export async function postShopperMessage(db: Db, linkId: string, message: string): Promise<boolean> {
  const claim = await findLinkedClaim(db, linkId);
  if (!claim) return false;
  // The link's claim was just found, so the message is written to it.
  await postMessage(db, claim.storeId, claim.id, { message, senderType: 'customer', authorName: claim.authorEmail });
  return true;
}

/** The claim a link opens, for the caller's rate-limit key (D41); never shown. */
export async function linkedClaimId(db: Db, linkId: string): Promise<string | undefined> {
  return (await findLinkedClaim(db, linkId))?.id;
}

/** D56: the words of the message each added photo becomes. */
export const ADDED_PHOTO_MESSAGE = 'Added a photo.';

/**
 * D56 "Add photos": each photo (a file of the claim's store, attached nowhere yet) becomes a
 * message with its media, `senderType` `customer`, while the claim is open. Answers the
 * claim's store for the upload, `closed` when the claim is over, undefined when the link opens
 * no claim.
 */
export async function linkedOpenClaim(
  db: Db,
  linkId: string,
): Promise<{ claimId: string; storeId: string } | 'closed' | undefined> {
  const claim = await db
    .selectFrom('claims')
    .select(['id', 'storeId', 'claimState'])
    .where('linkId', '=', linkId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  if (!claim) return undefined;
  return isOpen(claim.claimState as TClaimState) ? { claimId: claim.id, storeId: claim.storeId } : 'closed';
}

export async function postShopperPhoto(db: Db, linkId: string, url: string): Promise<boolean> {
  const claim = await findLinkedClaim(db, linkId);
  if (!claim) return false;
  await postMessage(db, claim.storeId, claim.id, {
    message: ADDED_PHOTO_MESSAGE,
    senderType: 'customer',
    authorName: claim.authorEmail,
    medias: [url],
  });
  return true;
}
