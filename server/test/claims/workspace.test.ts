import { CLAIM_STATES, ZClaimConnection } from '@protection-service/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TClaimListQuery } from '../../../sdk/src/index';
import { postMessage } from '../../src/domain/claims/moves';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { answered, errorOf } from '../harness/fixtures';
import { jsonOf } from '../harness/json';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The claims workspace (D51): the list's tabs, search, type and order; the fuller record; the
 * timeline; staff notes; the approve preview; the order list and each line's claimable quantity.
 */
describe('claims workspace (D51)', () => {
  let server: TestServer;
  let s: ClaimStore;
  let other: ClaimStore;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    s = await claimStore(server, 'workspace');
    other = await claimStore(server, 'workspace-other');
  });
  afterAll(async () => {
    await server.close();
  });

  const list = async (query: TClaimListQuery, store = s) => answered(await store.api.claims.list({ query }), 200);
  const ids = async (query: TClaimListQuery, store = s) => (await list(query, store)).edges.map((e) => e.node.id);
  const setState = (claimId: string, state: string) =>
    sql`update claims set claim_state = ${state} where id = ${claimId}`.execute(server.db);

  describe('GET /v1/claims: queue, claimState, q, claimType, order', () => {
    // One claim per state, filed in order, so the list's order is the filing order.
    const byState: Record<string, string> = {};
    const states = CLAIM_STATES;

    beforeAll(async () => {
      for (const [i, state] of states.entries()) {
        await s.putOrder(`o-${i}`, {
          sourceOrderNumber: `#${2000 + i}`,
          customerEmail: i === 3 ? 'Found@Example.com' : null,
        });
        const id = await s.fileId(
          `o-${i}`,
          claimBody({
            email: i === 3 ? 'Found@Example.com' : `shopper${i}@example.com`,
            fulfillmentIssues: [{ issues: [{ issueType: i % 2 === 0 ? 'DAMAGED' : 'STOLEN', quantity: 1 }] }],
          }),
        );
        await setState(id, state);
        byState[state] = id;
      }
    });

    it('lists each tab of the queue, every state in exactly one (D51)', async () => {
      const tabs = {
        to_do: ['NEW', 'OPEN', 'COMMUNICATING', 'WAITING_FOR_BRAND'],
        waiting_on_shopper: ['WAITING_FOR_CUSTOMER'],
        on_hold: ['WAITING_FOR_OP', 'TEMPORARILY_DISMISSED'],
        approved: ['APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND'],
        declined: ['DENIED', 'DISMISSED'],
        closed: ['CLOSED', 'ARCHIVED'],
      } as const;
      const seen: string[] = [];
      for (const [queue, want] of Object.entries(tabs)) {
        const got = await ids({ queue: queue as keyof typeof tabs });
        expect(got, queue).toEqual(want.map((st) => byState[st]));
        seen.push(...got);
      }
      expect(seen.sort()).toEqual(Object.values(byState).sort());
    });

    it('takes claimState repeated, through the SDK and in a raw query string', async () => {
      expect(await ids({ claimState: ['DENIED', 'NEW'] })).toEqual([byState.NEW, byState.DENIED]);
      expect(await ids({ claimState: 'OPEN' })).toEqual([byState.OPEN]);
      const raw = await s.get('/v1/claims?claimState=CLOSED&claimState=APPROVED&claimState=CLOSED');
      expect(raw.status).toBe(200);
      const page = await jsonOf(raw, ZClaimConnection);
      expect(page.edges.map((e) => e.node.id)).toEqual([byState.APPROVED, byState.CLOSED]);
      // A tab's states asked one by one list what the tab lists.
      expect(await ids({ claimState: ['DENIED', 'DISMISSED'] })).toEqual(await ids({ queue: 'declined' }));
    });

    it('finds a claim by its id, its order number or the e-mail in any case, exactly (q)', async () => {
      expect(await ids({ q: byState.OPEN! })).toEqual([byState.OPEN]);
      expect(await ids({ q: '#2005' })).toEqual([byState.WAITING_FOR_OP]);
      expect(await ids({ q: 'found@example.COM' })).toEqual([byState.WAITING_FOR_CUSTOMER]);
      expect(await ids({ q: '#200' })).toEqual([]);
      expect(await ids({ q: 'example.com' })).toEqual([]);
      // Another store's claim id, order number and e-mail find nothing here (D7).
      await other.putOrder('theirs', { sourceOrderNumber: '#2001' });
      const theirs = await other.fileId('theirs', claimBody({ email: 'found@example.com' }));
      expect(await ids({ q: theirs })).toEqual([]);
      expect(await ids({ q: '#2001' })).toEqual([byState.OPEN]);
      expect(await ids({ q: 'found@example.com' })).toEqual([byState.WAITING_FOR_CUSTOMER]);
      // Combined with a tab, the search keeps only what the tab holds.
      expect(await ids({ q: '#2001', queue: 'closed' })).toEqual([]);
    });

    it('filters by claimType, alone and with a tab', async () => {
      expect(await ids({ claimType: 'STOLEN', queue: 'to_do' })).toEqual([byState.OPEN]);
      expect(await ids({ claimType: 'STOLEN', queue: 'on_hold' })).toEqual([
        byState.WAITING_FOR_OP,
        byState.TEMPORARILY_DISMISSED,
      ]);
      expect((await ids({ claimType: 'DAMAGED' })).length).toBe(7);
      expect(await ids({ claimType: 'MULTIPLE' })).toEqual([]);
    });

    it('pages newest first with order=desc, forward and backward, at any page size', async () => {
      const all = Object.values(byState);
      const newest = [...all].reverse();
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await list({ order: 'desc', first: 4, ...(after ? { after } : {}) });
        seen.push(...page.edges.map((e) => e.node.id));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor!;
      }
      expect(seen).toEqual(newest);
      const last = await list({ order: 'desc', last: 3 });
      expect(last.edges.map((e) => e.node.id)).toEqual(newest.slice(-3));
      const before = await list({ order: 'desc', last: 2, before: last.pageInfo.startCursor! });
      expect(before.edges.map((e) => e.node.id)).toEqual(newest.slice(-5, -3));
      expect(before.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
      // A tab newest first.
      expect(await ids({ queue: 'to_do', order: 'desc' })).toEqual(
        ['WAITING_FOR_BRAND', 'COMMUNICATING', 'OPEN', 'NEW'].map((st) => byState[st]),
      );
    });

    it('refuses a cursor of the other order, and invalid combinations, with 400 in the D2 shape', async () => {
      const asc = await list({ first: 2 });
      const crossed = await s.get(`/v1/claims?order=desc&after=${encodeURIComponent(asc.pageInfo.endCursor!)}`);
      expect(crossed.status).toBe(400);
      const tab = await s.get(`/v1/claims?queue=to_do&after=${encodeURIComponent(asc.pageInfo.endCursor!)}`);
      expect(tab.status).toBe(400);
      const both = await s.get('/v1/claims?queue=to_do&claimState=NEW');
      expect(both.status).toBe(400);
      expect(await errorOf(both)).toMatchObject({
        statusCode: 400,
        error: 'Bad Request',
        issues: [{ path: 'query.claimState' }],
      });
      const dates = await s.get('/v1/claims?createdAtMin=2026-02-01T00:00:00Z&createdAtMax=2026-01-01T00:00:00Z');
      expect(dates.status).toBe(400);
      expect((await errorOf(dates)).issues).toEqual([{ path: 'query.createdAtMax', message: expect.any(String) }]);
      for (const bad of ['queue=all', 'order=newest', 'claimType=LOST', 'claimState=NEW&claimState=GONE', 'q=']) {
        const res = await s.get(`/v1/claims?${bad}`);
        expect(res.status, bad).toBe(400);
        expect(await errorOf(res), bad).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      }
    });
  });

  describe('the claim record (D51)', () => {
    it('adds category, channel, deny reason and details, and the items as filed with their names', async () => {
      await s.putOrder('rec-1', {
        lineItems: [
          { sourceItemId: 'li-mug', name: 'Blue mug', quantity: 2 },
          { sourceItemId: 'li-cup', quantity: 1 },
        ],
      });
      const claimId = await s.fileId(
        'rec-1',
        claimBody({
          claimCategory: 'WARRANTY',
          salesChannel: 'IN_STORE',
          fulfillmentIssues: [
            {
              sourceFulfillmentId: 'f-9',
              issues: [
                {
                  issueType: 'DAMAGED',
                  quantity: 2,
                  sourceItemId: 'li-mug',
                  sourceProductId: 'p-mug',
                  sourceVariantId: 'v-blue',
                  details: 'chipped',
                  images: ['https://img.example.com/mug.jpg'],
                },
                { issueType: 'MISSING_ITEM', quantity: 1, sourceItemId: 'li-cup' },
              ],
            },
          ],
        }),
      );
      const claim = answered(await s.api.claims.get({ params: { claimId } }), 200);
      expect(claim).toMatchObject({
        claimCategory: 'WARRANTY',
        salesChannel: 'IN_STORE',
        denyReason: null,
        denyDetails: null,
      });
      expect(claim.claimItems).toMatchObject([
        {
          itemId: 'li-mug',
          quantity: 2,
          issueType: 'DAMAGED',
          details: 'chipped',
          images: ['https://img.example.com/mug.jpg'],
          sourceFulfillmentId: 'f-9',
          sourceProductId: 'p-mug',
          sourceVariantId: 'v-blue',
          name: 'Blue mug',
        },
        {
          itemId: 'li-cup',
          issueType: 'MISSING_ITEM',
          details: null,
          images: [],
          sourceProductId: null,
          name: null,
        },
      ]);
      answered(
        await s.api.claims.deny({ params: { claimId }, body: { reason: 'POTENTIAL_FRAUD', details: 'twice' } }),
        200,
      );
      expect(answered(await s.api.claims.get({ params: { claimId } }), 200)).toMatchObject({
        denyReason: 'POTENTIAL_FRAUD',
        denyDetails: 'twice',
      });
    });
  });

  describe('timeline, notes and the approve preview', () => {
    const setSettings = () =>
      sql`
      update merchant_settings set store_credit_bonus = 10, store_credit_bonus_type = 'percentage',
        store_credit_max_percentage = 100
      where store_id = ${s.owner.store.id}
    `.execute(server.db);
    const counts = async (claimId: string) =>
      (
        await sql<Record<string, number>>`
          select (select count(*)::int from webhook_events where body->>'claimId' = ${claimId}) as events,
            (select count(*)::int from claim_resolutions where claim_id = ${claimId}) as resolutions,
            (select count(*)::int from claim_store_credits where claim_id = ${claimId}) as credits,
            (select count(*)::int from claim_state_changes where claim_id = ${claimId}) as moves,
            (select count(*)::int from mail_messages where claim_id = ${claimId}) as mail,
            (select updated_at::text from claims where id = ${claimId}) as updated
        `.execute(server.db)
      ).rows[0]!;

    it('previews the store credit approve then issues, changing nothing (D26)', async () => {
      await setSettings();
      await s.putOrder('pv-1', { lineItems: [{ sourceItemId: 'li-1', quantity: 1 }] });
      const claimId = await s.fileId('pv-1');
      const body = {
        resolutions: [
          { type: 'RESHIP' as const, itemId: 'li-1', quantity: 1 },
          { type: 'STORE_CREDIT' as const, paidValue: 12.35 },
        ],
      };
      const before = await counts(claimId);
      const preview = answered(await s.api.claims.previewApproval({ params: { claimId }, body }), 200);
      expect(preview).toEqual({
        data: {
          storeCredits: [
            {
              resolution: 1,
              creditValue: 12.35,
              bonusValue: 1.24,
              totalValue: 13.59,
              bonus: 10,
              bonusType: 'PERCENTAGE',
              currency: 'USD',
              storeCreditType: expect.any(String),
            },
          ],
        },
      });
      expect(await counts(claimId)).toEqual(before);
      expect(answered(await s.api.claims.get({ params: { claimId } }), 200).claimState).toBe('NEW');
      const approved = answered(await s.api.claims.approve({ params: { claimId }, body }), 200);
      expect(approved.claimStoreCredits).toMatchObject([
        { creditValue: 12.35, bonusValue: 1.24, totalValue: 13.59, creditCurrency: 'USD' },
      ]);
      // Approved: approve would answer 409, and so does the preview.
      const again = await s.post(`/v1/claims/${claimId}/approve/preview`, body);
      expect(again.status).toBe(409);
      // What approve refuses, the preview refuses.
      const other2 = await s.fileId(
        'pv-1',
        claimBody({ fulfillmentIssues: [{ issues: [{ issueType: 'STOLEN', quantity: 1 }] }] }),
      );
      const zero = await s.post(`/v1/claims/${other2}/approve/preview`, {
        resolutions: [{ type: 'STORE_CREDIT', paidValue: 0 }],
      });
      expect(zero.status).toBe(400);
      const currency = await s.post(`/v1/claims/${other2}/approve/preview`, {
        resolutions: [{ type: 'STORE_CREDIT', paidValue: 5, paidCurrency: 'EUR' }],
      });
      expect(currency.status).toBe(400);
      expect((await s.post('/v1/claims/clm_unknown/approve/preview', body)).status).toBe(404);
    });

    it('adds a staff note: 201, no webhook, no e-mail, no updatedAt, never on the shopper page (D41)', async () => {
      await s.putOrder('nt-1');
      const claimId = await s.fileId('nt-1');
      const before = await counts(claimId);
      const res = answered(
        await s.api.claims.addNote({ params: { claimId }, body: { note: 'Called the carrier: STAFF-ONLY-7' } }),
        201,
      );
      expect(res.data).toEqual({
        id: expect.stringMatching(/^cln_/),
        claimId,
        note: 'Called the carrier: STAFF-ONLY-7',
        actor: { type: 'app', id: s.clientId, name: 'Test App' },
        createdAt: expect.any(String),
      });
      expect(await counts(claimId)).toEqual(before);
      const { viewClaimUrl } = answered(await s.api.claims.get({ params: { claimId } }), 200);
      const page = await fetch(server.baseUrl + new URL(viewClaimUrl).pathname);
      expect(page.status).toBe(200);
      expect(await page.text()).not.toContain('STAFF-ONLY-7');
      // 1-5,000 characters; another store's claim answers like an unknown one.
      expect((await s.post(`/v1/claims/${claimId}/notes`, { note: 'x'.repeat(5000) })).status).toBe(201);
      expect((await s.post(`/v1/claims/${claimId}/notes`, { note: 'x'.repeat(5001) })).status).toBe(400);
      expect((await s.post(`/v1/claims/${claimId}/notes`, { note: '' })).status).toBe(400);
      const foreign = await other.post(`/v1/claims/${claimId}/notes`, { note: 'hi' });
      const unknown = await other.post('/v1/claims/clm_unknown/notes', { note: 'hi' });
      expect(foreign.status).toBe(404);
      expect(await errorOf(foreign)).toEqual(await errorOf(unknown));
    });

    it('answers the timeline oldest first, each entry with its actor', async () => {
      await setSettings();
      await s.putOrder('tl-1');
      const claimId = await s.fileId('tl-1');
      const app = { type: 'app', id: s.clientId, name: 'Test App' };
      await postMessage(server.db, s.owner.store.id, claimId, {
        message: 'Where is it?',
        senderType: 'customer',
        authorName: 'shopper@example.com',
      });
      answered(
        await s.api.claims.postMessage({
          params: { claimId },
          body: { message: 'Looking into it', senderType: 'brand', authorName: 'Support' },
        }),
        200,
      );
      answered(await s.api.claims.transition({ params: { claimId }, body: { claimState: 'OPEN', note: 'mine' } }), 200);
      answered(await s.api.claims.addNote({ params: { claimId }, body: { note: 'carrier says lost' } }), 201);
      const approved = answered(
        await s.api.claims.approve({
          params: { claimId },
          body: { resolutions: [{ type: 'STORE_CREDIT', paidValue: 20, details: 'sorry' }] },
        }),
        200,
      );
      const credit = approved.claimStoreCredits[0]!;
      const timeline = answered(await s.api.claims.getTimeline({ params: { claimId } }), 200).data;
      expect(timeline.map((e) => e.type)).toEqual([
        'message',
        'message',
        'state_change',
        'note',
        'state_change',
        'resolution',
        'store_credit',
      ]);
      expect(timeline).toMatchObject([
        { actor: { type: 'shopper', id: null, name: 'shopper@example.com' }, message: 'Where is it?' },
        { actor: app, message: 'Looking into it', senderType: 'brand' },
        { actor: app, from: 'NEW', to: 'OPEN', note: 'mine' },
        { actor: app, note: 'carrier says lost' },
        { actor: app, from: 'OPEN', to: 'APPROVED', note: null },
        { actor: app, resolutionType: 'STORE_CREDIT', paidValue: 20, paidCurrency: 'USD', details: 'sorry' },
        {
          actor: app,
          code: credit.code,
          creditValue: 20,
          bonusValue: 2,
          totalValue: 22,
          currency: 'USD',
          emailStatus: credit.emailStatus,
        },
      ]);
      const times = timeline.map((e) => e.at);
      expect([...times].sort()).toEqual(times);
      // A foreign claim id answers exactly what an unknown one does (D7).
      const foreign = await other.get(`/v1/claims/${claimId}/timeline`);
      const unknown = await other.get('/v1/claims/clm_unknown/timeline');
      expect(foreign.status).toBe(404);
      expect(await errorOf(foreign)).toEqual(await errorOf(unknown));
    });
  });

  describe('orders: the list and claimable quantities (D39)', () => {
    it('lists live orders newest first, searches them, and pages by dates', async () => {
      const o = await claimStore(server, 'workspace-orders');
      for (let i = 0; i < 5; i++)
        await o.putOrder(`ord-${i}`, {
          sourceOrderNumber: `#${300 + i}`,
          customerEmail: i === 2 ? 'Buyer@Example.com' : `c${i}@example.com`,
        });
      answered(await o.api.orders.remove({ params: { sourceOrderId: 'ord-4' } }), 200);
      const page = answered(await o.api.orders.list({ query: { first: 2 } }), 200);
      expect(page.edges.map((e) => e.node.sourceOrderId)).toEqual(['ord-3', 'ord-2']);
      const next = answered(await o.api.orders.list({ query: { first: 10, after: page.pageInfo.endCursor! } }), 200);
      expect(next.edges.map((e) => e.node.sourceOrderId)).toEqual(['ord-1', 'ord-0']);
      expect(next.pageInfo.hasNextPage).toBe(false);
      const search = async (q: string) =>
        answered(await o.api.orders.list({ query: { q } }), 200).edges.map((e) => e.node.sourceOrderId);
      expect(await search('#301')).toEqual(['ord-1']);
      expect(await search('buyer@example.com')).toEqual(['ord-2']);
      expect(await search('#304')).toEqual([]);
      expect(await search('#30')).toEqual([]);
      // Another store's orders are never listed (D7).
      expect(answered(await other.api.orders.list({ query: { q: '#301' } }), 200).edges).toEqual([]);
      const created = page.edges[1]!.node.createdAt;
      const since = answered(await o.api.orders.list({ query: { createdAtMin: created } }), 200);
      expect(since.edges.map((e) => e.node.sourceOrderId)).toEqual(['ord-3', 'ord-2']);
      const bad = await o.get('/v1/orders?createdAtMin=2026-02-01T00:00:00Z&createdAtMax=2026-01-01T00:00:00Z');
      expect(bad.status).toBe(400);
      expect((await o.get('/v1/orders?first=0')).status).toBe(400);
    });

    it('answers each line with what a claim may still ask, as the filing checks it', async () => {
      await s.putOrder('cq-1', {
        lineItems: [
          { sourceItemId: 'a', quantity: 3 },
          { sourceItemId: 'b', quantity: 1 },
        ],
      });
      const claimable = async () =>
        Object.fromEntries(
          answered(await s.api.orders.get({ params: { sourceOrderId: 'cq-1' } }), 200).lineItems!.map((li) => [
            li.sourceItemId,
            li.claimableQuantity,
          ]),
        );
      const inList = async () =>
        answered(await s.api.orders.list({ query: { q: '#1001' } }), 200)
          .edges.find((e) => e.node.sourceOrderId === 'cq-1')!
          .node.lineItems!.map((li) => li.claimableQuantity);
      expect(await claimable()).toEqual({ a: 3, b: 1 });
      const issue = (sourceItemId: string, quantity: number) =>
        claimBody({ fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity, sourceItemId }] }] });
      const first = await s.fileId('cq-1', issue('a', 2));
      expect(await claimable()).toEqual({ a: 1, b: 1 });
      expect(await inList()).toEqual([1, 1]);
      // Asking for more than the answer says is refused; asking for exactly that is filed.
      expect((await s.file('cq-1', issue('a', 2))).status).toBe(400);
      await s.fileId('cq-1', issue('a', 1));
      expect(await claimable()).toEqual({ a: 0, b: 1 });
      // A refused claim frees its quantity (D39).
      answered(await s.api.claims.deny({ params: { claimId: first }, body: { reason: 'NOT_COVERED' } }), 200);
      expect(await claimable()).toEqual({ a: 2, b: 1 });
      expect((await s.file('cq-1', issue('a', 2))).status).toBe(200);
      expect(await claimable()).toEqual({ a: 0, b: 1 });
    });
  });
});
