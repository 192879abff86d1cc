import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createOwner, installWithToken } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { type Client, createClient, paginate, type TClaimListQuery, unwrap } from '../src/index';

/**
 * The claims workspace (D51) through the SDK, against the real server: the list's tab, states
 * (an array written as the parameter repeated), search and order; the timeline; a staff note;
 * the approve preview; the order list with claimable quantities.
 */
describe('SDK: the claims workspace', () => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    const owner = await createOwner(server.db, 'sdk-workspace');
    const scopes = ['order:update', 'claim:manage'] as const;
    const app = await createApp(server, owner.user.id, { requestedScopes: [...scopes] });
    const { accessToken } = await installWithToken(server, app.clientId, owner.store.id, [...scopes]);
    client = createClient({ baseUrl: server.baseUrl, accessToken });
    for (const n of [1, 2])
      unwrap(
        await client.orders.upsert({
          params: { sourceOrderId: `ws-${n}` },
          body: {
            sourceOrderNumber: `#ws-${n}`,
            currency: 'EUR',
            platformId: 'api',
            total: 60,
            sourceCreatedAt: '2026-05-01T10:00:00Z',
            customerEmail: `buyer${n}@example.com`,
            lineItems: [{ sourceItemId: 'mug', quantity: 3, price: 20 }],
          },
        }),
      );
  });
  afterAll(async () => {
    await server.close();
  });

  const file = async (sourceOrderId: string) => {
    const res = await client.claims.file({
      params: { sourceOrderId },
      body: {
        email: 'shopper@example.com',
        salesChannel: 'ONLINE',
        claimCategory: 'SHIPPING',
        fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1, sourceItemId: 'mug' }] }],
        resolution: { desiredMethod: 'STORE_CREDIT' },
      },
    });
    unwrap(res);
    return res.headers.get('location')!.replace('/v1/claims/', '');
  };

  it('lists by tab, by several states, by search, newest first, and pages them all', async () => {
    const first = await file('ws-1');
    const second = await file('ws-2');
    unwrap(
      await client.claims.transition({ params: { claimId: second }, body: { claimState: 'WAITING_FOR_CUSTOMER' } }),
    );
    const ids = async (query: TClaimListQuery) =>
      unwrap(await client.claims.list({ query })).edges.map((e) => e.node.id);
    expect(await ids({ queue: 'to_do' })).toEqual([first]);
    expect(await ids({ queue: 'waiting_on_shopper' })).toEqual([second]);
    expect(await ids({ claimState: ['WAITING_FOR_CUSTOMER', 'NEW'], order: 'desc' })).toEqual([second, first]);
    // The array is the parameter repeated, which the API reads as any of the states.
    expect(await ids({ claimState: ['WAITING_FOR_CUSTOMER', 'OPEN'] })).toEqual([second]);
    expect(await ids({ q: '#ws-2' })).toEqual([second]);
    const all = [];
    for await (const c of paginate(client.claims.list, { query: { first: 1, order: 'desc' } })) all.push(c.id);
    expect(all).toEqual([second, first]);
  });

  it('adds a note, previews and approves, and reads the timeline', async () => {
    const claimId = await file('ws-1');
    const note = unwrap(await client.claims.addNote({ params: { claimId }, body: { note: 'Checked the photos' } }));
    expect(note.data).toMatchObject({ claimId, note: 'Checked the photos', actor: { type: 'app' } });
    const body = { resolutions: [{ type: 'STORE_CREDIT' as const, paidValue: 15 }] };
    const preview = unwrap(await client.claims.previewApproval({ params: { claimId }, body })).data;
    expect(preview.storeCredits).toEqual([
      expect.objectContaining({ resolution: 0, creditValue: 15, currency: 'EUR' }),
    ]);
    const approved = unwrap(await client.claims.approve({ params: { claimId }, body }));
    expect(approved.claimStoreCredits[0]).toMatchObject({
      creditValue: preview.storeCredits[0]!.creditValue,
      totalValue: preview.storeCredits[0]!.totalValue,
    });
    const timeline = unwrap(await client.claims.getTimeline({ params: { claimId } })).data;
    expect(timeline.map((e) => e.type)).toEqual(['note', 'state_change', 'resolution', 'store_credit']);
  });

  it('exports the filtered claims as CSV text (D52)', async () => {
    const csv = unwrap(await client.claims.export({ query: { queue: 'approved' } }));
    const [header, ...lines] = csv.trimEnd().split('\r\n');
    expect(header!.split(',')).toEqual([
      'claimId',
      'createdAt',
      'claimState',
      'claimType',
      'sourceOrderId',
      'sourceOrderNumber',
      'authorName',
      'authorEmail',
      'items',
      'resolution',
      'amount',
      'currency',
    ]);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.includes(',APPROVED,'))).toBe(true);
  });

  it('lists orders newest first with what is left to claim of each line', async () => {
    const orders = unwrap(await client.orders.list({ query: { q: 'BUYER1@example.com' } }));
    expect(orders.edges.map((e) => e.node.sourceOrderId)).toEqual(['ws-1']);
    const left = orders.edges[0]!.node.lineItems![0]!.claimableQuantity;
    expect(left).toBe(3 - 2);
    const newest = unwrap(await client.orders.list({ query: { first: 1 } }));
    expect(newest.edges.map((e) => e.node.sourceOrderId)).toEqual(['ws-2']);
  });
});
