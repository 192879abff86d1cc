import { expect } from 'vitest';
import type { Client, TClaimFile, TOrderWrite } from '../../src/index';
import type { answerLog } from './answers';

/**
 * The `/v1` order, fulfillment and claim operations, whose shapes every dated version shares
 * (D44), driven through one version's client by the every-route tests of the older versions.
 * An older version's client is typed by its own generated types; on these routes they answer
 * what the latest's do, but for narrower enums (D54's claim types), so it is used as one.
 */
export const order: TOrderWrite = {
  sourceOrderNumber: '#1001',
  currency: 'EUR',
  platformId: 'api',
  total: 60,
  premiumPaid: 2,
  sourceCreatedAt: '2026-05-01T10:00:00Z',
  lineItems: [{ sourceItemId: 'mug', quantity: 10, price: 6 }],
};
export const claim: TClaimFile = {
  email: 'shopper@example.com',
  salesChannel: 'ONLINE',
  claimCategory: 'SHIPPING',
  fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 2, sourceItemId: 'mug' }] }],
  resolution: { desiredMethod: 'STORE_CREDIT' },
};

type Log = ReturnType<typeof answerLog>;
/** The parts of a client these flows call, of any dated version. */
export type V1Client = Pick<Client, 'orders' | 'claims' | 'tracking' | 'testHelpers'>;

/** Orders, fulfillments, filing, reading and deciding claims, offline claims, deleting an order. */
export async function ordersAndClaims(client: V1Client, { body }: Log): Promise<void> {
  const sourceOrderId = 'v1-1';
  expect(body('orders.upsert', await client.orders.upsert({ params: { sourceOrderId }, body: order }), 200)).toEqual({
    status: 'ok',
  });
  expect(body('orders.get', await client.orders.get({ params: { sourceOrderId } }), 200)).toMatchObject({
    sourceOrderId,
    currency: 'EUR',
    total: 60,
    premiumPaid: 2,
    lineItems: [{ sourceItemId: 'mug', quantity: 10, price: 6 }],
  });
  const fulfillment = { sourceOrderId, sourceFulfillmentId: 'ful-1' };
  body(
    'orders.upsertFulfillment',
    await client.orders.upsertFulfillment({
      params: fulfillment,
      body: { fulfillmentStatus: 'OUT_FOR_DELIVERY', trackingNumber: ['T1'] },
    }),
    200,
  );
  const fulfillments = body(
    'orders.listFulfillments',
    await client.orders.listFulfillments({ params: { sourceOrderId } }),
    200,
  );
  expect(fulfillments.map((f) => f.sourceFulfillmentId)).toEqual(['ful-1']);
  // Shipment tracking (D54): the fulfillment's number is a package already.
  const tracked = body(
    'tracking.addEvents',
    await client.tracking.addEvents({
      params: fulfillment,
      body: { trackingNumber: 'T1', events: [{ occurredAt: '2026-05-02T10:00:00Z', status: 'delivered' }] },
    }),
    200,
  );
  expect(tracked).toMatchObject({ trackingNumber: 'T1', status: 'delivered' });
  expect(body('tracking.get', await client.tracking.get({ params: fulfillment }), 200)).toEqual([tracked]);
  body('orders.cancelFulfillment', await client.orders.cancelFulfillment({ params: fulfillment }), 200);

  const file = async () => {
    const res = await client.claims.file({
      params: { sourceOrderId },
      headers: { 'idempotency-key': `v1-${Math.random()}` },
      body: claim,
    });
    expect(body('claims.file', res, 200)).toEqual({ status: 'ok' });
    return res.headers.get('location')!.replace('/v1/claims/', '');
  };
  const id = await file();
  expect(body('claims.get', await client.claims.get({ params: { claimId: id } }), 200)).toMatchObject({
    id,
    claimState: 'NEW',
    sourceOrderId,
    policy: { premiumPaid: 2 },
  });
  const list = body('claims.list', await client.claims.list({ query: { first: 10, sourceOrderId } }), 200);
  expect(list.edges.map((e) => e.node.id)).toEqual([id]);
  body(
    'claims.postMessage',
    await client.claims.postMessage({ params: { claimId: id }, body: { message: 'Hi', senderType: 'brand' } }),
    200,
  );
  const open = body(
    'claims.transition',
    await client.claims.transition({ params: { claimId: id }, body: { claimState: 'OPEN' } }),
    200,
  );
  expect(open.claimState).toBe('OPEN');
  const approved = body(
    'claims.approve',
    await client.claims.approve({
      params: { claimId: id },
      body: { resolutions: [{ type: 'STORE_CREDIT', paidValue: 15 }] },
    }),
    200,
  );
  expect(approved.claimState).toBe('APPROVED');
  const other = await file();
  const denied = body(
    'claims.deny',
    await client.claims.deny({ params: { claimId: other }, body: { reason: 'NOT_COVERED' } }),
    200,
  );
  expect(denied.claimState).toBe('DENIED');
  const ofOrder = body('orders.listClaims', await client.orders.listClaims({ params: { sourceOrderId } }), 200);
  expect(ofOrder.map((c) => c.id)).toEqual([id, other]);
  const offline = body(
    'claims.fileOffline',
    await client.claims.fileOffline({
      body: {
        customer: { email: 'walk@example.com' },
        items: [{ name: 'Toaster', price: 30 }],
        warranty: { dateOfPurchase: '2026-04-04' },
        salesChannel: 'IN_STORE',
        claimCategory: 'WARRANTY',
        issueType: 'DEFECTIVE_ITEM',
      },
    }),
    200,
  );
  expect(offline.payload.sourceOrderId).toMatch(/^offline_/);

  body('orders.upsert', await client.orders.upsert({ params: { sourceOrderId: 'v1-gone' }, body: order }), 200);
  expect(body('orders.remove', await client.orders.remove({ params: { sourceOrderId: 'v1-gone' } }), 200)).toEqual({
    status: 'ok',
  });
  body('orders.get', await client.orders.get({ params: { sourceOrderId: 'v1-gone' } }), 404);
}

/** The claims workspace (D51) and the export (D52): the same answers on every version, additive. */
export async function claimsWorkspace(client: V1Client, { seen, body }: Log): Promise<void> {
  const sourceOrderId = 'v1-workspace';
  body('orders.upsert', await client.orders.upsert({ params: { sourceOrderId }, body: order }), 200);
  const filed = seen('claims.file', await client.claims.file({ params: { sourceOrderId }, body: claim }));
  const claimId = filed.headers.get('location')!.replace('/v1/claims/', '');
  const list = body('claims.list', await client.claims.list({ query: { queue: 'to_do', order: 'desc' } }), 200);
  expect(list.edges[0]!.node.id).toBe(claimId);
  const note = body(
    'claims.addNote',
    await client.claims.addNote({ params: { claimId }, body: { note: 'staff only' } }),
    201,
  );
  expect(note.data.note).toBe('staff only');
  const preview = body(
    'claims.previewApproval',
    await client.claims.previewApproval({
      params: { claimId },
      body: { resolutions: [{ type: 'STORE_CREDIT', paidValue: 15 }] },
    }),
    200,
  );
  expect(preview.data.storeCredits).toHaveLength(1);
  const timeline = body('claims.getTimeline', await client.claims.getTimeline({ params: { claimId } }), 200);
  expect(timeline.data.map((e) => e.type)).toEqual(['note']);
  // D52: the export is text (CSV) on the earlier version too.
  const csv = body('claims.export', await client.claims.export({ query: { q: claimId } }), 200);
  expect(csv.split('\r\n')[1]).toMatch(new RegExp(`^${claimId},`));
  const orders = body('orders.list', await client.orders.list({ query: { q: order.sourceOrderNumber } }), 200);
  const mine = orders.edges.find((e) => e.node.sourceOrderId === sourceOrderId)!;
  expect(mine.node.lineItems![0]!.claimableQuantity).toBe(10 - 2);
}

/** The tracking test helper (D54) on a test store's order: a package of a new fulfillment reported lost. */
export async function injectTrackingEvents(testClient: V1Client, { body }: Log, sourceOrderId: string): Promise<void> {
  body(
    'orders.upsertFulfillment',
    await testClient.orders.upsertFulfillment({
      params: { sourceOrderId, sourceFulfillmentId: 'tf-1' },
      body: { fulfillmentStatus: 'IN_TRANSIT', trackingNumber: ['TT1'] },
    }),
    200,
  );
  const injected = body(
    'testHelpers.addTrackingEvents',
    await testClient.testHelpers.addTrackingEvents({
      body: {
        sourceOrderId,
        sourceFulfillmentId: 'tf-1',
        trackingNumber: 'TT1',
        events: [{ occurredAt: '2026-05-03T10:00:00Z', status: 'lost' }],
      },
    }),
    200,
  );
  expect(injected.status).toBe('lost');
}
