import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimableItem, claimableItems } from '../../src/domain/commerce/claimable';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { errorOf } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** D39: what an order's item can still be claimed for, and what a refusal gives back. */
describe('claimable quantity (D39)', () => {
  let server: TestServer;
  let s: ClaimStore;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    s = await claimStore(server, 'claimable');
  });
  afterAll(() => server.close());

  const claiming = (sourceItemId: string, quantity: number) =>
    claimBody({ fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', sourceItemId, quantity }] }] });
  const written = async () =>
    (
      await sql<{ claims: number; items: number; events: number }>`
        select (select count(*)::int from claims) as claims, (select count(*)::int from claim_items) as items,
          (select count(*)::int from webhook_events) as events
      `.execute(server.db)
    ).rows[0]!;
  const move = (id: string, to: string) =>
    to === 'DENIED'
      ? s.post(`/v1/claims/${id}/deny`, { reason: 'NOT_COVERED' })
      : s.post(`/v1/claims/${id}/transition`, { claimState: to });

  it('subtracts earlier claims; over-asking answers 400 naming the item and what is left, and writes nothing', async () => {
    await s.putOrder('q-1', {
      lineItems: [
        { sourceItemId: 'mug', quantity: 3 },
        { sourceItemId: 'cap', quantity: 1 },
      ],
    });
    await s.fileId('q-1', claiming('mug', 2));
    const before = await written();
    const res = await s.file('q-1', claiming('mug', 2));
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(body.issues).toEqual([
      {
        path: 'body.fulfillmentIssues.0.issues.0.quantity',
        message: 'exceeds what is left to claim of item mug: 1 of 3 ordered (D39)',
      },
    ]);
    expect(body.message).toContain('item mug: 1 of 3');
    expect(await written()).toEqual(before);

    // What is left can still be claimed, and the other item is untouched by the mug's claims.
    await s.fileId('q-1', claiming('mug', 1));
    await s.fileId('q-1', claiming('cap', 1));
    const none = await s.file('q-1', claiming('mug', 1));
    expect((await errorOf(none)).issues?.[0]?.message).toBe(
      'exceeds what is left to claim of item mug: 0 of 3 ordered (D39)',
    );
  });

  it('counts quantities of one item across the issues of one claim', async () => {
    await s.putOrder('q-2', { lineItems: [{ sourceItemId: 'mug', quantity: 2 }] });
    await s.fileId('q-2', claiming('mug', 1));
    const res = await s.file(
      'q-2',
      claimBody({
        fulfillmentIssues: [
          { sourceFulfillmentId: 'f-1', issues: [{ issueType: 'DAMAGED', sourceItemId: 'mug', quantity: 1 }] },
          { sourceFulfillmentId: 'f-2', issues: [{ issueType: 'STOLEN', sourceItemId: 'mug', quantity: 1 }] },
        ],
      }),
    );
    expect(res.status).toBe(400);
    expect((await errorOf(res)).issues).toEqual([
      {
        path: 'body.fulfillmentIssues.1.issues.0.quantity',
        message: 'exceeds what is left to claim of item mug: 1 of 2 ordered (D39)',
      },
    ]);
  });

  it('gives back the quantity of refused claims (DENIED, DISMISSED, and CLOSED or ARCHIVED after them), not of others', async () => {
    await s.putOrder('q-3', { lineItems: [{ sourceItemId: 'mug', quantity: 1 }] });
    const refusedPaths = [['DENIED'], ['DISMISSED'], ['DENIED', 'CLOSED'], ['DISMISSED', 'CLOSED', 'ARCHIVED']];
    for (const path of refusedPaths) {
      const id = await s.fileId('q-3', claiming('mug', 1));
      expect((await s.file('q-3', claiming('mug', 1))).status).toBe(400);
      for (const to of path) expect((await move(id, to)).status, `${path.join(' → ')}`).toBe(200);
    }
    // Not refusals: a temporary dismissal, and a claim approved, resolved and closed.
    const parked = await s.fileId('q-3', claiming('mug', 1));
    expect((await move(parked, 'TEMPORARILY_DISMISSED')).status).toBe(200);
    expect((await s.file('q-3', claiming('mug', 1))).status).toBe(400);
    expect((await move(parked, 'OPEN')).status).toBe(200);
    expect((await move(parked, 'DISMISSED')).status).toBe(200);

    const approved = await s.fileId('q-3', claiming('mug', 1));
    expect((await s.post(`/v1/claims/${approved}/approve`, { resolutions: [{ type: 'RESHIP' }] })).status).toBe(200);
    expect((await move(approved, 'RESOLVED')).status).toBe(200);
    expect((await move(approved, 'CLOSED')).status).toBe(200);
    expect((await s.file('q-3', claiming('mug', 1))).status).toBe(400);
  });

  it('is one definition an order read can share: what each line item can still be claimed for', async () => {
    await s.putOrder('q-5', {
      lineItems: [
        { sourceItemId: 'mug', quantity: 3 },
        { sourceItemId: 'cap', quantity: 2 },
      ],
    });
    await s.fileId('q-5', claiming('mug', 2));
    expect((await move(await s.fileId('q-5', claiming('cap', 2)), 'DENIED')).status).toBe(200);
    const claimable = async () =>
      (
        await sql<ClaimableItem>`
          with o as (select id from orders where store_id = ${s.owner.store.id} and source_order_id = 'q-5')
          ${claimableItems(sql`(select id from o)`)} order by item_id
        `.execute(server.db)
      ).rows;
    // The denied claim gives its quantity back; the refusal quotes the same figures.
    expect(await claimable()).toEqual([
      { itemId: 'cap', ordered: 2, claimable: 2 },
      { itemId: 'mug', ordered: 3, claimable: 1 },
    ]);
    const res = await s.file('q-5', claiming('mug', 2));
    expect((await errorOf(res)).issues?.[0]?.message).toBe(
      'exceeds what is left to claim of item mug: 1 of 3 ordered (D39)',
    );
  });

  it('files exactly one of several concurrent claims on the last unit', async () => {
    await s.putOrder('q-4', { lineItems: [{ sourceItemId: 'mug', quantity: 2 }] });
    await s.fileId('q-4', claiming('mug', 1));
    const answers = await Promise.all(Array.from({ length: 6 }, () => s.file('q-4', claiming('mug', 1))));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    const filed = await sql<{ quantity: number }>`
      select coalesce(sum(ci.quantity), 0)::int as quantity from claims c join claim_items ci on ci.claim_id = c.id
      where c.source_order_id = 'q-4' and c.store_id = ${s.owner.store.id}
    `.execute(server.db);
    expect(filed.rows[0]!.quantity).toBe(2);
  });

  it('leaves offline claims alone: each creates its own order (D23)', async () => {
    const offline = {
      customer: { email: 'h@example.com' },
      items: [{ name: 'Kettle', sourceItemId: 'kettle' }],
      warranty: { dateOfPurchase: '2026-01-01' },
      salesChannel: 'IN_STORE',
      claimCategory: 'WARRANTY',
    };
    for (let i = 0; i < 2; i++) expect((await s.post('/v1/claims/offline', offline)).status).toBe(200);
  });
});
