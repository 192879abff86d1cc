import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TClaimListQuery, TOfflineClaimFile } from '../../../sdk/src/index';
import { type ClaimStore, claimBody, claimEvents, claimStore } from '../harness/claims';
import { answered, bearer, errorOf } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** Filing (D23), the claim record (D24), messages (D25) and the list with cursors (D24). */
describe('claims: filing, record, messages, list', () => {
  let server: TestServer;
  let s: ClaimStore;
  const queries: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 }, onQuery: (q) => queries.push(q) });
    s = await claimStore(server, 'claims');
  });
  afterAll(async () => {
    await server.close();
  });

  const read = async (id: string, store = s) => answered(await store.api.claims.get({ params: { claimId: id } }), 200);
  const events = (topic: string, claimId: string) => claimEvents(server.db, topic, claimId);
  const counts = async () => {
    const row = await sql<Record<string, number>>`
      select (select count(*) from claims) as claims, (select count(*) from claim_items) as items,
        (select count(*) from claim_messages) as messages, (select count(*) from webhook_events) as events,
        (select count(*) from orders) as orders
    `.execute(server.db);
    return row.rows[0]!;
  };

  describe('POST /v1/claims/:sourceOrderId (D23)', () => {
    it('files a NEW claim with items, the active policy, a SIGNATURE document, Location and claim/created', async () => {
      await s.putOrder('o-1', {
        premiumPaid: 2.5,
        customerName: 'Ann Shopper',
        lineItems: [
          { sourceItemId: 'li-a', quantity: 2 },
          { sourceItemId: 'li-b', quantity: 1 },
        ],
      });
      const res = await s.file(
        'o-1',
        claimBody({
          fulfillmentIssues: [
            {
              sourceFulfillmentId: 'f-1',
              issues: [
                { issueType: 'DAMAGED', quantity: 2, sourceItemId: 'li-a', details: 'box crushed' },
                { issueType: 'DAMAGED', quantity: 1, sourceItemId: 'li-b', images: ['https://img.example.com/1.jpg'] },
              ],
            },
          ],
          resolution: { desiredMethod: 'REFUND', customerSignature: 'https://sig.example.com/s.png' },
        }),
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      const location = res.headers.get('location')!;
      expect(location).toMatch(/^\/v1\/claims\/clm_[a-z2-7]+$/);
      const id = location.slice('/v1/claims/'.length);
      const claim = await read(id);
      const policy = await server.db
        .selectFrom('protectionPolicies')
        .select('id')
        .where('removedAt', 'is', null)
        .execute();
      expect(claim).toMatchObject({
        id,
        claimState: 'NEW',
        claimType: 'DAMAGED',
        claimFiledFrom: 'EXTERNAL',
        storeId: s.owner.store.id,
        sourceOrderId: 'o-1',
        sourceOrderNumber: '#1001',
        authorName: 'Ann Shopper',
        authorEmail: 'shopper@example.com',
        claimDescription: 'box crushed',
        resolutionRequested: 'REFUND',
        resolutionDate: null,
        externalSource: 'api',
        isOta: false,
        policyId: policy[0]!.id,
        // D41: the capability link, which does not reveal the claim id.
        viewClaimUrl: expect.stringMatching(new RegExp(`^${server.baseUrl}/claims/view/[0-9a-f]{64}[\\w-]{22}$`)),
        claimMessages: [],
        claimResolutions: [],
        claimStoreCredits: [],
      });
      expect(claim.claimItems.map((i) => [i.itemId, i.quantity])).toEqual([
        ['li-a', 2],
        ['li-b', 1],
      ]);
      expect(claim.claimDocuments.map((d) => [d.documentType, d.url])).toEqual([
        ['SIGNATURE', 'https://sig.example.com/s.png'],
        ['IMAGE', 'https://img.example.com/1.jpg'],
      ]);
      expect(claim.policy).toMatchObject({ id: policy[0]!.id, premiumPaid: 2.5, insuredAmount: 120, claim: { id } });
      expect(claim.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const [event] = await events('claim/created', id);
      expect(event!.body).toEqual({
        claimId: id,
        storeId: s.owner.store.id,
        sourceOrderId: 'o-1',
        claimCategory: 'SHIPPING',
        claimType: 'DAMAGED',
        claimState: 'NEW',
        items: claim.claimItems.map((i) => ({
          id: i.id,
          itemId: i.itemId,
          quantity: i.quantity,
          issueType: 'DAMAGED',
        })),
        // D57: the risk as filed, which the record answers too.
        risk: claim.risk,
      });
    });

    it('gives claimType MULTIPLE to mixed issue types and links no policy without protection (D22, D23)', async () => {
      await s.putOrder('o-mixed');
      const id = await s.fileId(
        'o-mixed',
        claimBody({
          fulfillmentIssues: [
            { issues: [{ issueType: 'DAMAGED', quantity: 1 }] },
            { issues: [{ issueType: 'STOLEN', quantity: 4 }] },
          ],
        }),
      );
      const claim = await read(id);
      expect(claim.claimType).toBe('MULTIPLE');
      expect(claim.policyId).toBeNull();
      expect(claim.policy).toBeNull();
      // Line items unknown: quantities are unchecked.
      expect(claim.claimItems.map((i) => i.quantity)).toEqual([1, 4]);
    });

    it('refuses quantities above the ordered ones (summed per item) and unknown items with 400, writing nothing', async () => {
      await s.putOrder('o-qty', { lineItems: [{ sourceItemId: 'x', quantity: 2 }] });
      const before = await counts();
      const over = await s.file(
        'o-qty',
        claimBody({
          fulfillmentIssues: [
            { issues: [{ issueType: 'DAMAGED', quantity: 2, sourceItemId: 'x' }] },
            { issues: [{ issueType: 'DAMAGED', quantity: 1, sourceItemId: 'x' }] },
          ],
        }),
      );
      expect(over.status).toBe(400);
      expect(await over.json()).toMatchObject({
        statusCode: 400,
        error: 'Bad Request',
        issues: [{ path: 'body.fulfillmentIssues.1.issues.0.quantity' }],
      });
      const unknown = await s.file(
        'o-qty',
        claimBody({ fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1, sourceItemId: 'nope' }] }] }),
      );
      expect(unknown.status).toBe(400);
      expect((await errorOf(unknown)).issues![0]!.path).toBe('body.fulfillmentIssues.0.issues.0.sourceItemId');
      for (const quantity of [0, -1, 1.5]) {
        const res = await s.file(
          'o-qty',
          claimBody({ fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity, sourceItemId: 'x' }] }] }),
        );
        expect(res.status).toBe(400);
      }
      expect(await counts()).toEqual(before);
    });

    it('requires email, salesChannel, claimCategory, desiredMethod and at least one issue (400)', async () => {
      await s.putOrder('o-req');
      const full: Record<string, unknown> = { ...claimBody() };
      for (const field of ['email', 'salesChannel', 'claimCategory', 'fulfillmentIssues']) {
        const { [field]: _, ...rest } = full;
        const res = await s.file('o-req', rest);
        expect(res.status, field).toBe(400);
        expect((await errorOf(res)).issues![0]!.path).toContain(field);
      }
      expect((await s.file('o-req', { ...claimBody(), resolution: {} })).status).toBe(400);
      expect((await s.file('o-req', claimBody({ fulfillmentIssues: [] }))).status).toBe(400);
      expect((await s.file('o-req', claimBody({ fulfillmentIssues: [{ issues: [] }] }))).status).toBe(400);
      expect((await s.file('o-req', { ...claimBody(), extra: 1 })).status).toBe(400);
    });

    it('answers 404 about the order for an unknown or deleted order', async () => {
      const res = await s.file('o-unknown', claimBody());
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ statusCode: 404, error: 'Not Found', message: 'order not found' });
      await s.putOrder('o-deleted');
      await server.request('/v1/orders/o-deleted', { method: 'DELETE', headers: bearer(s.token) });
      expect((await s.file('o-deleted', claimBody())).status).toBe(404);
    });
  });

  describe('POST /v1/claims/offline (D23)', () => {
    const offline = (overrides: Partial<TOfflineClaimFile> = {}): TOfflineClaimFile => ({
      customer: { email: 'walkin@example.com', phoneNumber: '+14155550100' },
      items: [
        { name: 'Blender', sku: 'BL-1', price: 89.99, sourceItemId: 'it-1', images: ['https://img.example.com/b.jpg'] },
      ],
      warranty: { dateOfPurchase: '2026-03-01', receiptImages: ['https://img.example.com/r.jpg'] },
      shippingAddress: { firstName: 'Walk', lastName: 'In', city: 'Springfield', addressOrigin: 'CONCIERGE' },
      salesChannel: 'IN_STORE',
      claimCategory: 'WARRANTY',
      issueType: 'DEFECTIVE_ITEM',
      resolution: 'REFUND',
      signature: 'https://sig.example.com/o.png',
      ...overrides,
    });

    it('creates an offline_… order and a claim on its one item, and echoes the payload', async () => {
      const res = await s.api.claims.fileOffline({ body: offline({ storeId: s.owner.store.id }) });
      const body = answered(res, 200);
      expect(body.status).toBe('ok');
      expect(body.payload.sourceOrderId).toMatch(/^offline_[a-z2-7]+$/);
      expect(body.payload).toMatchObject({
        storeId: s.owner.store.id,
        customer: { email: 'walkin@example.com', phoneNumber: '+14155550100' },
        item: { name: 'Blender', sku: 'BL-1', price: 89.99, sourceItemId: 'it-1', subIssueId: null },
        warranty: { dateOfPurchase: '2026-03-01', receiptRequired: null },
        shippingAddress: { firstName: 'Walk', city: 'Springfield', zip: null, addressOrigin: 'CONCIERGE' },
        signature: 'https://sig.example.com/o.png',
        salesChannel: 'IN_STORE',
        claimCategory: 'WARRANTY',
        issueType: 'DEFECTIVE_ITEM',
        resolution: 'REFUND',
      });
      const params = { sourceOrderId: body.payload.sourceOrderId };
      const order = answered(await s.api.orders.get({ params }), 200);
      expect(order).toMatchObject({ currency: 'USD', total: 89.99, customerEmail: 'walkin@example.com' });
      const [claim] = answered(await s.api.orders.listClaims({ params }), 200);
      expect(claim).toMatchObject({ claimState: 'NEW', claimType: 'DEFECTIVE_ITEM', resolutionRequested: 'REFUND' });
      expect(res.headers.get('location')).toBe(`/v1/claims/${claim!.id}`);
      expect(claim!.claimItems.map((i) => [i.itemId, i.quantity])).toEqual([['it-1', 1]]);
      expect(claim!.claimDocuments.map((d) => d.documentType)).toEqual(['SIGNATURE', 'RECEIPT', 'IMAGE']);
      expect(await events('claim/created', claim!.id)).toHaveLength(1);
    });

    it("refuses another store's storeId, zero or two items and a missing purchase date with 400, writing nothing", async () => {
      const other = await claimStore(server, 'claims-offline-other');
      const before = await counts();
      const foreign = await s.api.claims.fileOffline({ body: offline({ storeId: other.owner.store.id }) });
      expect(answered(foreign, 400).issues![0]!.path).toBe('body.storeId');
      const item = offline().items[0]!;
      expect((await s.post('/v1/claims/offline', offline({ items: [] }))).status).toBe(400);
      expect((await s.post('/v1/claims/offline', offline({ items: [item, item] }))).status).toBe(400);
      // Bodies the client's types would refuse: sent raw.
      expect((await s.post('/v1/claims/offline', { ...offline(), warranty: {} })).status).toBe(400);
      expect((await s.post('/v1/claims/offline', { ...offline(), customer: {} })).status).toBe(400);
      expect(await counts()).toEqual(before);
    });
  });

  describe('the claim record (D24)', () => {
    it('is read with the same small number of queries however many nested rows it has', async () => {
      await s.putOrder('o-small', { premiumPaid: 1 });
      await s.putOrder('o-big', {
        premiumPaid: 1,
        lineItems: Array.from({ length: 40 }, (_, i) => ({ sourceItemId: `i${i}`, quantity: 1 })),
      });
      const small = await s.fileId('o-small');
      const big = await s.fileId(
        'o-big',
        claimBody({
          resolution: { desiredMethod: 'RESHIP', customerSignature: 'https://sig.example.com/x.png' },
          fulfillmentIssues: [
            {
              issues: Array.from({ length: 40 }, (_, i) => ({
                issueType: 'MISSING_ITEM',
                quantity: 1,
                sourceItemId: `i${i}`,
                images: ['https://img.example.com/m.jpg'],
              })),
            },
          ],
        }),
      );
      for (let i = 0; i < 15; i++)
        expect((await s.post(`/v1/claims/${big}/messages`, { message: `m${i}`, senderType: 'brand' })).status).toBe(
          200,
        );
      const approved = await s.post(`/v1/claims/${big}/approve`, {
        resolutions: Array.from({ length: 10 }, () => ({ type: 'STORE_CREDIT', paidValue: 5 })),
      });
      expect(approved.status).toBe(200);
      const queriesOf = async (id: string) => {
        queries.length = 0;
        const claim = await read(id);
        // Other queries of the request (the rate-limit counter) and of background work (the
        // revocation feed) name no claim table.
        return { n: queries.filter((q) => /claim/.test(q)).length, claim };
      };
      const a = await queriesOf(small);
      const b = await queriesOf(big);
      expect(b.claim.claimItems).toHaveLength(40);
      expect(b.claim.claimMessages).toHaveLength(15);
      expect(b.claim.claimStoreCredits).toHaveLength(10);
      expect(b.claim.claimDocuments).toHaveLength(41);
      expect(a.n).toBe(1);
      expect(b.n).toBe(1);
    });

    it('GET /v1/orders/:sourceOrderId/claims answers the records oldest first, [] without claims, 404 for no order', async () => {
      await s.putOrder('o-list');
      const first = await s.fileId('o-list');
      const second = await s.fileId('o-list');
      const claimsOf = (sourceOrderId: string) => s.api.orders.listClaims({ params: { sourceOrderId } });
      expect(answered(await claimsOf('o-list'), 200).map((c) => c.id)).toEqual([first, second]);
      await s.putOrder('o-none');
      expect(answered(await claimsOf('o-none'), 200)).toEqual([]);
      const missing = await claimsOf('o-missing-x');
      expect(answered(missing, 404)).toMatchObject({ message: 'order not found' });
    });
  });

  describe('POST /v1/claims/:claimId/messages (D25)', () => {
    it('adds the message, touches updatedAt and records message/created', async () => {
      await s.putOrder('o-msg');
      const id = await s.fileId('o-msg');
      const before = await read(id);
      const res = await s.post(`/v1/claims/${id}/messages`, {
        message: 'Photos attached',
        senderType: 'customer',
        authorName: 'Ann',
        medias: ['https://img.example.com/p.jpg'],
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      const after = await read(id);
      expect(after.claimMessages).toEqual([
        {
          senderType: 'customer',
          id: expect.stringMatching(/^msg_/),
          claimId: id,
          message: 'Photos attached',
          authorName: 'Ann',
          medias: ['https://img.example.com/p.jpg'],
        },
      ]);
      expect(after.updatedAt >= before.updatedAt).toBe(true);
      const [event] = await events('message/created', id);
      expect(event!.body).toEqual({
        claimId: id,
        storeId: s.owner.store.id,
        messageId: after.claimMessages[0]!.id,
        senderType: 'customer',
        message: 'Photos attached',
      });
    });

    it('refuses an empty message or unknown sender (400) and an unknown claim (404), writing nothing', async () => {
      await s.putOrder('o-msg2');
      const id = await s.fileId('o-msg2');
      const before = await counts();
      expect((await s.post(`/v1/claims/${id}/messages`, { message: '', senderType: 'brand' })).status).toBe(400);
      expect((await s.post(`/v1/claims/${id}/messages`, { message: 'x', senderType: 'robot' })).status).toBe(400);
      const missing = await s.post('/v1/claims/clm_missing/messages', { message: 'x', senderType: 'brand' });
      expect(missing.status).toBe(404);
      expect(await counts()).toEqual(before);
    });
  });

  describe('GET /v1/claims (D24)', () => {
    let lister: ClaimStore;
    let ids: string[];

    beforeAll(async () => {
      lister = await claimStore(server, 'claims-list');
      await lister.putOrder('L-1');
      await lister.putOrder('L-2');
      ids = [];
      for (let i = 0; i < 7; i++) ids.push(await lister.fileId(i % 2 === 0 ? 'L-1' : 'L-2'));
      // Two claims sharing one creation time: the id breaks the tie.
      await sql`update claims set created_at = (select created_at from claims where id = ${ids[3]!}) where id = ${ids[4]!}`.execute(
        server.db,
      );
      ids = (
        await server.db
          .selectFrom('claims')
          .select('id')
          .where('storeId', '=', lister.owner.store.id)
          .orderBy('createdAt')
          .orderBy('id')
          .execute()
      ).map((r) => r.id);
    });

    const list = async (query: TClaimListQuery = {}, store = lister) =>
      answered(await store.api.claims.list({ query }), 200);
    const walk = async (size: number, filters: TClaimListQuery = {}) => {
      const seen: string[] = [];
      let page = await list({ first: size, ...filters });
      seen.push(...page.edges.map((e) => e.node.id));
      while (page.pageInfo.hasNextPage) {
        page = await list({ first: size, after: page.pageInfo.endCursor!, ...filters });
        seen.push(...page.edges.map((e) => e.node.id));
      }
      return seen;
    };

    it('pages forward by createdAt then id, and backward with last/before', async () => {
      expect(await walk(2)).toEqual(ids);
      expect(await walk(1)).toEqual(ids);
      const all = await list();
      expect(all.edges.map((e) => e.node.id)).toEqual(ids);
      expect(all.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
      const tail = await list({ last: 3 });
      expect(tail.edges.map((e) => e.node.id)).toEqual(ids.slice(-3));
      expect(tail.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
      const prev = await list({ last: 3, before: tail.pageInfo.startCursor! });
      expect(prev.edges.map((e) => e.node.id)).toEqual(ids.slice(1, 4));
      expect(prev.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
      const node = all.edges[0]!.node;
      expect(node).toMatchObject({ storeId: lister.owner.store.id, claimState: 'NEW', claimResolutions: [] });
      expect(Object.keys(node)).not.toContain('claimStoreCredits');
    });

    it('filters by claimState, sourceOrderId and times, with cursors bound to the filters', async () => {
      const l2 = (await list({ sourceOrderId: 'L-2', first: 250 })).edges.map((e) => e.node);
      expect(l2.every((n) => n.sourceOrderId === 'L-2')).toBe(true);
      expect(l2).toHaveLength(3);
      expect(await walk(2, { sourceOrderId: 'L-2' })).toEqual(l2.map((n) => n.id));
      await lister.api.claims.transition({ params: { claimId: ids[0]! }, body: { claimState: 'OPEN' } });
      expect((await list({ claimState: 'OPEN' })).edges.map((e) => e.node.id)).toEqual([ids[0]]);
      expect((await list({ claimState: 'NEW' })).edges).toHaveLength(6);
      const future = new Date(Date.now() + 3600_000).toISOString();
      expect((await list({ createdAtMin: future })).edges).toEqual([]);
      expect((await list({ createdAtMax: future })).edges).toHaveLength(7);
      expect((await list({ updatedAtMin: future })).edges).toEqual([]);
      // A cursor of one filter set is refused by another, and by another store.
      const page = await list({ first: 2, sourceOrderId: 'L-1' });
      const after = page.pageInfo.endCursor!;
      expect((await lister.api.claims.list({ query: { after, sourceOrderId: 'L-2' } })).status).toBe(400);
      expect((await lister.api.claims.list({ query: { after } })).status).toBe(400);
      expect((await s.api.claims.list({ query: { after, sourceOrderId: 'L-1' } })).status).toBe(400);
      expect((await lister.api.claims.list({ query: { after, sourceOrderId: 'L-1' } })).status).toBe(200);
    });

    it('refuses tampered, forged and malformed cursors and bad paging with 400', async () => {
      const page = await list({ first: 2 });
      const cursor = page.pageInfo.endCursor!;
      const [text, mac] = cursor.split('.') as [string, string];
      const position = JSON.parse(Buffer.from(text, 'base64url').toString()) as [string, string];
      const moved = Buffer.from(JSON.stringify(['1970-01-01T00:00:00.000000Z', position[1]])).toString('base64url');
      const flipped = mac.slice(0, -1) + (mac.endsWith('A') ? 'B' : 'A');
      for (const bad of [`${moved}.${mac}`, `${text}.${flipped}`, text, `${text}.${mac}.x`, 'garbage', '', '.']) {
        const res = await lister.get(`/v1/claims?after=${encodeURIComponent(bad)}`);
        expect(res.status, bad).toBe(400);
        expect(await res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
        expect((await lister.get(`/v1/claims?before=${encodeURIComponent(bad)}&last=2`)).status).toBe(400);
      }
      for (const q of [
        '?first=0',
        '?first=251',
        '?last=0',
        '?first=1&last=1',
        '?first=abc',
        '?claimState=NOPE',
        '?createdAtMin=yesterday',
      ])
        expect((await lister.get(`/v1/claims${q}`)).status, q).toBe(400);
    });

    it('never repeats or skips an existing claim while new ones are filed during paging', async () => {
      const seen: string[] = [];
      let page = await list({ first: 2 });
      seen.push(...page.edges.map((e) => e.node.id));
      while (page.pageInfo.hasNextPage) {
        await lister.fileId('L-1');
        page = await list({ first: 2, after: page.pageInfo.endCursor! });
        seen.push(...page.edges.map((e) => e.node.id));
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.slice(0, ids.length)).toEqual(ids);
    });

    it('shows a store only its own claims (D7)', async () => {
      const own = (await list({ first: 250 }, s)).edges.map((e) => e.node.storeId);
      expect(new Set(own)).toEqual(new Set([s.owner.store.id]));
    });
  });

  describe('Idempotency-Key on the claim POSTs (D33, through the shared mechanism)', () => {
    const keyed = (key: string) => ({ 'idempotency-key': key });

    it('a repeated filing answers the first answer (same Location) and files once; another body answers 409', async () => {
      await s.putOrder('o-idem');
      const body = claimBody({ email: 'idem@example.com' });
      const first = await s.file('o-idem', body, keyed('file-1'));
      expect(first.status).toBe(200);
      const again = await s.file('o-idem', body, keyed('file-1'));
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('location')).toBe(first.headers.get('location'));
      expect((await s.file('o-idem', claimBody({ email: 'other@example.com' }), keyed('file-1'))).status).toBe(409);
      const claims = await server.db.selectFrom('claims').select('id').where('sourceOrderId', '=', 'o-idem').execute();
      expect(claims).toHaveLength(1);
      expect(await events('claim/created', claims[0]!.id)).toHaveLength(1);
    });

    it('a repeated offline filing echoes the same generated order and creates one', async () => {
      const body = {
        customer: { email: 'idem-offline@example.com' },
        items: [{ name: 'Kettle' }],
        warranty: { dateOfPurchase: '2026-02-02' },
        salesChannel: 'IN_STORE',
        claimCategory: 'WARRANTY',
      };
      const first = await s.post('/v1/claims/offline', body, keyed('offline-1'));
      const again = await s.post('/v1/claims/offline', body, keyed('offline-1'));
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.json()).toEqual(await first.json());
      const orders = await server.db
        .selectFrom('orders')
        .select('id')
        .where('customerEmail', '=', 'idem-offline@example.com')
        .execute();
      expect(orders).toHaveLength(1);
    });

    it('a repeated approve answers its 200 again instead of 409, with one resolution set; messages post once', async () => {
      await s.putOrder('o-idem-approve');
      const id = await s.fileId('o-idem-approve');
      const approve = { resolutions: [{ type: 'STORE_CREDIT', paidValue: 12 }] };
      const first = await s.post(`/v1/claims/${id}/approve`, approve, keyed('approve-1'));
      const again = await s.post(`/v1/claims/${id}/approve`, approve, keyed('approve-1'));
      expect([first.status, again.status]).toEqual([200, 200]);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.json()).toEqual(await first.json());
      expect((await s.post(`/v1/claims/${id}/approve`, approve, keyed('approve-2'))).status).toBe(409);
      expect(await events('claim/approved', id)).toHaveLength(1);
      const message = { message: 'once', senderType: 'brand' };
      for (let i = 0; i < 3; i++)
        expect((await s.post(`/v1/claims/${id}/messages`, message, keyed('message-1'))).status).toBe(200);
      expect((await read(id)).claimMessages).toHaveLength(1);
      expect(await events('message/created', id)).toHaveLength(1);
    });
  });
});
