import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createOwner, installWithToken } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { type Client, createClient, type TClaimListNode, unwrap } from '../src/index';

/** Every claim route (D22-D26, D33) through the SDK, against the real server. */
describe('SDK: claims', () => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    const owner = await createOwner(server.db, 'sdkclaims');
    const scopes = ['order:update', 'claim:manage'] as const;
    const app = await createApp(server, owner.user.id, { requestedScopes: [...scopes] });
    const { accessToken } = await installWithToken(server, app.clientId, owner.store.id, [...scopes]);
    client = createClient({ baseUrl: server.baseUrl, accessToken });
    unwrap(
      await client.orders.upsert({
        params: { sourceOrderId: 'sdk-claims' },
        body: {
          sourceOrderNumber: '#7',
          currency: 'EUR',
          platformId: 'api',
          total: 60,
          premiumPaid: 2,
          sourceCreatedAt: '2026-05-01T10:00:00Z',
          // Enough mugs for every claim the tests file (D39).
          lineItems: [{ sourceItemId: 'mug', quantity: 100, price: 20 }],
        },
      }),
    );
  });
  afterAll(async () => {
    await server.close();
  });

  const file = async () => {
    const res = await client.claims.file({
      params: { sourceOrderId: 'sdk-claims' },
      headers: { 'idempotency-key': `sdk-${Math.random()}` },
      body: {
        email: 'sdk@example.com',
        salesChannel: 'ONLINE',
        claimCategory: 'SHIPPING',
        fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 2, sourceItemId: 'mug' }] }],
        resolution: { desiredMethod: 'STORE_CREDIT' },
      },
    });
    expect(unwrap(res)).toEqual({ status: 'ok' });
    return res.headers.get('location')!.replace('/v1/claims/', '');
  };

  it('files, reads, messages, moves, approves and denies claims', async () => {
    const id = await file();
    const claim = unwrap(await client.claims.get({ params: { claimId: id } }));
    expect(claim).toMatchObject({ id, claimState: 'NEW', sourceOrderId: 'sdk-claims', policy: { premiumPaid: 2 } });

    expect(
      unwrap(
        await client.claims.postMessage({ params: { claimId: id }, body: { message: 'Hi', senderType: 'brand' } }),
      ),
    ).toEqual({ status: 'ok' });
    const open = unwrap(await client.claims.transition({ params: { claimId: id }, body: { claimState: 'OPEN' } }));
    expect(open.claimState).toBe('OPEN');
    expect(open.claimMessages.map((m) => m.message)).toEqual(['Hi']);

    const approved = unwrap(
      await client.claims.approve({
        params: { claimId: id },
        body: { resolutions: [{ type: 'STORE_CREDIT', paidValue: 15 }] },
      }),
    );
    expect(approved.claimState).toBe('APPROVED');
    expect(approved.claimStoreCredits[0]).toMatchObject({
      creditValue: 15,
      creditCurrency: 'EUR',
      emailStatus: 'PENDING',
    });
    const again = await client.claims.approve({
      params: { claimId: id },
      body: { resolutions: [{ type: 'RESHIP' }] },
    });
    expect(again.status).toBe(409);

    const other = await file();
    const denied = unwrap(await client.claims.deny({ params: { claimId: other }, body: { reason: 'NOT_COVERED' } }));
    expect(denied.claimState).toBe('DENIED');

    const ofOrder = unwrap(await client.orders.listClaims({ params: { sourceOrderId: 'sdk-claims' } }));
    expect(ofOrder.map((c) => c.id)).toEqual([id, other]);
  });

  it('files an offline claim', async () => {
    const filed = unwrap(
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
    );
    expect(filed.payload.sourceOrderId).toMatch(/^offline_/);
    expect(filed.payload.item).toMatchObject({ name: 'Toaster', price: 30 });
  });

  it('walks the list with cursors, forward and backward', async () => {
    for (let i = 0; i < 5; i++) await file();
    const all = unwrap(await client.claims.list({ query: { first: 250, sourceOrderId: 'sdk-claims' } }));
    const expected = all.edges.map((e) => e.node.id);
    expect(expected.length).toBeGreaterThanOrEqual(7);

    const seen: TClaimListNode[] = [];
    let after: string | undefined;
    for (;;) {
      const page = unwrap(await client.claims.list({ query: { first: 2, after, sourceOrderId: 'sdk-claims' } }));
      seen.push(...page.edges.map((e) => e.node));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor!;
    }
    expect(seen.map((n) => n.id)).toEqual(expected);

    const back: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = unwrap(await client.claims.list({ query: { last: 3, before, sourceOrderId: 'sdk-claims' } }));
      back.unshift(...page.edges.map((e) => e.node.id));
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor!;
    }
    expect(back).toEqual(expected);

    const tampered = await client.claims.list({ query: { after: `${after}x`, sourceOrderId: 'sdk-claims' } });
    expect(tampered.status).toBe(400);
  });
});
