import type { TClaim, TClaimListNode, TFulfillment, TTimelineEntry, TTrackingPackage } from '@protection-service/sdk';
import { unwrap } from '@protection-service/sdk';
import type { Dashboard, StorePage } from '../handlers';
import type { StoreApi } from '../staff-api';
import { type OwnFiles, readOwnFiles, readReusedPhotoClaims } from './evidence';

/** Everything the claim page shows (D50), read through the API. */
export interface ClaimView {
  claim: TClaim;
  timeline: TTimelineEntry[];
  /** The order's fulfillments; undefined when the role cannot read orders. */
  fulfillments: TFulfillment[] | undefined;
  /** The packages of the fulfillments the claim is about (D54); undefined when the role cannot read orders. */
  tracking: TrackingView | undefined;
  /** Other claims on the same order, and by the same e-mail. */
  orderClaims: TClaimListNode[];
  emailClaims: TClaimListNode[];
}

/** Reads the claim and all around it through the API (D50, D51), in parallel. */
async function readClaim(api: StorePage['api'], claimId: string): Promise<ClaimView> {
  const { client } = api;
  const claim = unwrap(await client.claims.get({ params: { claimId } }));
  const others = (nodes: TClaimListNode[]) => nodes.filter((c) => c.id !== claim.id);
  const [timeline, orderClaims, emailClaims, shipping] = await Promise.all([
    client.claims.getTimeline({ params: { claimId } }).then((r) => unwrap(r).data),
    client.claims
      .list({ query: { sourceOrderId: claim.sourceOrderId, first: 50, order: 'desc' } })
      .then((r) => others(unwrap(r).edges.map((e) => e.node))),
    claim.authorEmail
      ? client.claims
          .list({ query: { q: claim.authorEmail, first: 50, order: 'desc' } })
          .then((r) => others(unwrap(r).edges.map((e) => e.node)))
      : Promise.resolve([]),
    readShipping(api, claim),
  ]);
  return { claim, timeline, orderClaims, emailClaims, ...shipping };
}

/** The order's fulfillments, then the packages of those the claim is about (D54). */
async function readShipping(
  api: StorePage['api'],
  claim: TClaim,
): Promise<Pick<ClaimView, 'fulfillments' | 'tracking'>> {
  const fulfillments = await readFulfillments(api, claim.sourceOrderId);
  if (!fulfillments) return { fulfillments, tracking: undefined };
  return {
    fulfillments,
    tracking: await readTracking(api, claim.sourceOrderId, concernedFulfillments(claim, fulfillments)),
  };
}

/** The order's fulfillments, none when the order is gone, undefined when the role cannot read orders. */
async function readFulfillments(api: StorePage['api'], sourceOrderId: string) {
  if (!api.can('order:read', 'order:update')) return undefined;
  const res = await api.client.orders.listFulfillments({ params: { sourceOrderId } });
  return res.status === 404 ? [] : unwrap(res);
}

/** One fulfillment's packages (D54); undefined when the tracking read was refused or found nothing. */
export interface FulfillmentTracking {
  sourceFulfillmentId: string;
  packages: TTrackingPackage[] | undefined;
}

/** The packages a page shows, and how many fulfillments it left out (MAX_TRACKED). */
export interface TrackingView {
  fulfillments: FulfillmentTracking[];
  omitted: number;
}

/** Fulfillments whose tracking one page reads at most: one API read each. */
export const MAX_TRACKED = 20;

/**
 * The fulfillments a claim is about: those its items name (a shopper's claim names the
 * fulfillment of each issue, a claim the rules filed names its package's, D54); when no item
 * names one, all the order's, since any of them may be the one.
 */
export function concernedFulfillments(claim: TClaim, fulfillments: TFulfillment[]): TFulfillment[] {
  const named = new Set(claim.claimItems.map((i) => i.sourceFulfillmentId));
  const concerned = fulfillments.filter((f) => named.has(f.sourceFulfillmentId));
  return concerned.length > 0 ? concerned : fulfillments;
}

/**
 * Reads the packages of each fulfillment through the API (D54), all at once. A refusal or a 404
 * of one read is that fulfillment's "not available", never a broken page.
 */
export async function readTracking(
  api: StoreApi,
  sourceOrderId: string,
  fulfillments: TFulfillment[],
): Promise<TrackingView> {
  const read = fulfillments.slice(0, MAX_TRACKED);
  const answers = await Promise.all(
    read.map(async ({ sourceFulfillmentId }): Promise<FulfillmentTracking> => {
      const res = await api.client.tracking.get({ params: { sourceOrderId, sourceFulfillmentId } });
      return { sourceFulfillmentId, packages: res.status === 200 ? res.body : undefined };
    }),
  );
  return { fulfillments: answers, omitted: fulfillments.length - read.length };
}

/**
 * The claim page's reads: the claim and all around it, the store's other claims whose photos
 * it shows beside this one's (D57), and the type of each of the service's own files they name (D56).
 */
export interface ClaimPageData extends ClaimView {
  reused: TClaim[];
  own: OwnFiles;
}

export async function loadClaimPage(dashboard: Dashboard, page: StorePage): Promise<ClaimPageData> {
  const view = await readClaim(page.api, String(page.req.params.claimId));
  const reused = await readReusedPhotoClaims(page.api, view.claim);
  const own = await readOwnFiles(dashboard, page, [view.claim, ...reused]);
  return { ...view, reused, own };
}
