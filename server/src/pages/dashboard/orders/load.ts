import type { TClaim, TClaimFile, TFulfillment, TOrder } from '@protection-service/sdk';
import { unwrap } from '@protection-service/sdk';
import type { Request } from 'express';
import { readTracking, type TrackingView } from '../claims/load';
import type { StorePage } from '../handlers';

const PAGE_SIZE = 50;

type Api = StorePage['api'];

/** A page of the orders list: the search, its orders, and the query of the next page if any. */
export interface OrderList {
  q: string;
  orders: TOrder[];
  nextQuery: URLSearchParams | undefined;
}

/** The list: a search, 50 a page newest first, "Next page" by the keyset cursor (D24, D51). */
export async function loadOrders(req: Request, api: Api): Promise<OrderList> {
  const q = typeof req.query.q === 'string' ? req.query.q.trim() : '';
  const after = typeof req.query.after === 'string' && req.query.after !== '' ? req.query.after : undefined;
  const page = unwrap(
    await api.client.orders.list({ query: { first: PAGE_SIZE, ...(q ? { q } : {}), ...(after ? { after } : {}) } }),
  );
  const next = page.pageInfo.hasNextPage && page.pageInfo.endCursor ? page.pageInfo.endCursor : undefined;
  const nextQuery = next ? new URLSearchParams({ ...(q ? { q } : {}), after: next }) : undefined;
  return { q, orders: page.edges.map((e) => e.node), nextQuery };
}

/** An order with its fulfillments, their packages (D54), its claims if the role reads them, and whether it may file. */
export interface OrderView {
  order: TOrder;
  fulfillments: TFulfillment[];
  tracking: TrackingView;
  claims: TClaim[] | undefined;
  canFile: boolean;
}

export async function loadOrder(req: Request, api: Api): Promise<OrderView> {
  const sourceOrderId = String(req.params.sourceOrderId);
  const params = { sourceOrderId };
  const order = unwrap(await api.client.orders.get({ params }));
  const [{ fulfillments, tracking }, claims] = await Promise.all([
    // Then each fulfillment's packages (D54), their status and last scan in its row.
    api.client.orders
      .listFulfillments({ params })
      .then(unwrap)
      .then(async (fulfillments) => ({
        fulfillments,
        tracking: await readTracking(api, sourceOrderId, fulfillments),
      })),
    api.can('claim:read', 'claim:update', 'claim:manage')
      ? api.client.orders.listClaims({ params }).then(unwrap)
      : Promise.resolve(undefined),
  ]);
  return { order, fulfillments, tracking, claims, canFile: api.can('claim:update', 'claim:manage') };
}

/** Files the claim for the shopper through the API, like the shopper's own would be (D23): the new claim's id, and whether the key had filed it before. */
export async function fileClaim(
  api: Api,
  sourceOrderId: string,
  claim: TClaimFile,
  key: string | undefined,
): Promise<{ claimId: string; replayed: boolean }> {
  const filed = await api.client.claims.file({
    params: { sourceOrderId },
    body: claim,
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  });
  unwrap(filed);
  return {
    claimId: (filed.headers.get('location') ?? '').replace('/v1/claims/', ''),
    replayed: filed.headers.get('idempotent-replayed') === 'true',
  };
}
