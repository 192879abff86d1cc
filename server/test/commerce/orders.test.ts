import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answered, bearer, createApp, createOwner, errorOf, installWithToken, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** Orders (D18), protection policies and their events (D19, D32), fulfillments (D20). */
describe('orders, policies and fulfillments', () => {
  let server: TestServer;
  let owner: Owner;
  let clientId: string;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    owner = await createOwner(server.db, 'orders');
    clientId = (await createApp(server, owner.user.id, { requestedScopes: ['order:read', 'order:update'] })).clientId;
    token = (await installWithToken(server, clientId, owner.store.id, ['order:update'])).accessToken;
  });
  afterAll(async () => {
    await server.close();
  });

  const order = (overrides: Record<string, unknown> = {}) => ({
    sourceOrderNumber: '#1001',
    currency: 'USD',
    platformId: 'shopify',
    total: 120.5,
    sourceCreatedAt: '2026-01-31T12:00:00+01:00',
    ...overrides,
  });
  const put = (id: string, json: unknown, t = token) =>
    server.request(`/v1/orders/${encodeURIComponent(id)}`, { method: 'PUT', headers: bearer(t), json });
  const get = (id: string, t = token) => server.api(t).orders.get({ params: { sourceOrderId: id } });
  const del = (id: string, t = token) => server.api(t).orders.remove({ params: { sourceOrderId: id } });
  const read = async (id: string) => answered(await get(id), 200);
  const events = (sourceOrderId: string) =>
    server.db
      .selectFrom('webhookEvents')
      .select(['topic', 'body'])
      .where('storeId', '=', owner.store.id)
      .where(sql`body->>'sourceOrderId'`, '=', sourceOrderId)
      .orderBy('createdAt')
      .execute();
  const policies = (orderId: string) =>
    server.db
      .selectFrom('protectionPolicies')
      .selectAll()
      .where('orderId', '=', orderId)
      .orderBy('createdAt')
      .execute();

  describe('PUT and GET /v1/orders/:sourceOrderId (D18)', () => {
    it('creates an order and answers it with id, storeId, protection and D6 timestamps', async () => {
      const res = await put('o-basic', order({ customerEmail: 'ann@example.com', subtotal: 100 }));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      const o = await read('o-basic');
      expect(o).toMatchObject({
        storeId: owner.store.id,
        sourceOrderId: 'o-basic',
        sourceOrderNumber: '#1001',
        currency: 'USD',
        platformId: 'shopify',
        total: 120.5,
        subtotal: 100,
        customerEmail: 'ann@example.com',
        premiumPaid: null,
        lineItems: null,
        sourceCreatedAt: '2026-01-31T11:00:00.000Z',
        protection: { status: 'NONE', policyId: null },
      });
      expect(o.id).toMatch(/^ord_/);
      expect(o.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('replaces the whole order: omitted optional fields become null', async () => {
      await put('o-replace', order({ customerName: 'Ann', tax: 3, lineItems: [{ sourceItemId: 'i1', quantity: 2 }] }));
      const first = await read('o-replace');
      expect(first.lineItems).toEqual([
        {
          sourceItemId: 'i1',
          sourceProductId: null,
          sourceVariantId: null,
          name: null,
          sku: null,
          quantity: 2,
          price: null,
          isShippable: null,
          claimableQuantity: 2,
        },
      ]);
      await put('o-replace', order({ total: 99 }));
      const second = await read('o-replace');
      expect(second).toMatchObject({ customerName: null, tax: null, total: 99, lineItems: null });
      expect(second.id).toBe(first.id);
      expect(second.createdAt).toBe(first.createdAt);
      expect(
        await server.db.selectFrom('orderLineItems').where('orderId', '=', first.id).selectAll().execute(),
      ).toEqual([]);
    });

    it('stores line items in order, replaces them on the next PUT, and rounds money per D6', async () => {
      const items = [
        { sourceItemId: 'b', quantity: 1, price: 10.005, name: 'B', isShippable: true },
        { sourceItemId: 'a', quantity: 3, price: 2.675, sku: 'SKU-A', sourceProductId: 'p', sourceVariantId: 'v' },
      ];
      await put('o-items', order({ total: 1.005, lineItems: items }));
      let o = await read('o-items');
      expect(o.total).toBe(1.01);
      expect(o.lineItems!.map((i) => [i.sourceItemId, i.price, i.quantity])).toEqual([
        ['b', 10.01, 1],
        ['a', 2.68, 3],
      ]);
      await put(
        'o-items',
        order({
          lineItems: [
            { sourceItemId: 'a', quantity: 5 },
            { sourceItemId: 'c', quantity: 1 },
          ],
        }),
      );
      o = await read('o-items');
      expect(o.lineItems!.map((i) => [i.sourceItemId, i.quantity, i.sku])).toEqual([
        ['a', 5, null],
        ['c', 1, null],
      ]);
      // An empty list is known and empty; an omitted one is unknown (null).
      await put('o-items', order({ lineItems: [] }));
      expect((await read('o-items')).lineItems).toEqual([]);
    });

    it('rounds to the currency minor units: JPY has none, KWD three', async () => {
      await put('o-jpy', order({ currency: 'JPY', total: 1234.5 }));
      expect((await read('o-jpy')).total).toBe(1235);
      await put('o-kwd', order({ currency: 'KWD', total: 1.0005 }));
      expect((await read('o-kwd')).total).toBe(1.001);
    });

    it('requires sourceOrderNumber, currency, platformId, total and sourceCreatedAt (400 naming each)', async () => {
      const res = await put('o-required', {});
      expect(res.status).toBe(400);
      const body = await errorOf(res);
      expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(body.issues!.map((i) => i.path).sort()).toEqual(
        ['body.currency', 'body.platformId', 'body.sourceCreatedAt', 'body.sourceOrderNumber', 'body.total'].sort(),
      );
      expect((await get('o-required')).status).toBe(404);
    });

    it('answers 404 for an unknown originalSourceOrderId and writes nothing', async () => {
      const res = await put('o-repl', order({ originalSourceOrderId: 'nope' }));
      expect(res.status).toBe(404);
      expect((await get('o-repl')).status).toBe(404);
      await put('o-orig', order());
      expect((await put('o-repl', order({ originalSourceOrderId: 'o-orig' }))).status).toBe(200);
      expect((await read('o-repl')).originalSourceOrderId).toBe('o-orig');
    });

    it('answers 404 for an unknown order', async () => {
      const res = await get('never-put');
      expect(answered(res, 404)).toEqual({ statusCode: 404, message: 'order not found', error: 'Not Found' });
    });

    it('soft-deletes: later reads answer 404, a second delete 404, and the id may be PUT again', async () => {
      await put('o-del', order({ customerName: 'Old' }));
      const before = await read('o-del');
      expect((await del('o-del')).status).toBe(200);
      expect((await get('o-del')).status).toBe(404);
      expect((await del('o-del')).status).toBe(404);
      const row = await server.db
        .selectFrom('orders')
        .select('deletedAt')
        .where('id', '=', before.id)
        .executeTakeFirst();
      expect(row?.deletedAt).toBeInstanceOf(Date);
      expect((await put('o-del', order())).status).toBe(200);
      const again = await read('o-del');
      expect(again.id).not.toBe(before.id);
      expect(again.customerName).toBeNull();
    });

    it('needs order:update to write; order:read reads (group rule); 403 names the scope', async () => {
      const reader = (await installWithToken(server, clientId, owner.store.id, ['order:read'])).accessToken;
      await put('o-scope', order());
      expect((await get('o-scope', reader)).status).toBe(200);
      const res = await put('o-scope', order(), reader);
      expect(res.status).toBe(403);
      expect((await errorOf(res)).message).toContain('order:update');
      expect((await del('o-scope', reader)).status).toBe(403);
      // Restore the writer's scopes on the shared installation.
      token = (await installWithToken(server, clientId, owner.store.id, ['order:update'])).accessToken;
    });
  });

  describe('protection policies and their events (D19)', () => {
    it('gaining protection creates a policy and records protection/added once; re-sending records nothing', async () => {
      await put('p-1', order({ premiumPaid: 4.5 }));
      const o = await read('p-1');
      expect(o.protection.status).toBe('ACTIVE');
      expect(o.protection.policyId).toMatch(/^pol_/);
      await put('p-1', order({ premiumPaid: 4.5 }));
      await put('p-1', order({ premiumPaid: 4.5 }));
      const evts = await events('p-1');
      expect(evts).toEqual([
        {
          topic: 'protection/added',
          body: {
            orderId: o.id,
            sourceOrderId: 'p-1',
            storeId: owner.store.id,
            policyId: o.protection.policyId,
            premiumPaid: 4.5,
            currency: 'USD',
          },
        },
      ]);
      const [policy] = await policies(o.id);
      expect(policy).toMatchObject({
        premiumPaid: 4.5,
        customerAmount: 4.5,
        brandAmount: 0,
        insuredAmount: 120.5,
        premiumCurrency: 'USD',
        fundedBy: 'customer',
        hybridOperator: 'AND',
        removedAt: null,
      });
    });

    it('a premium change while protected updates the policy and records nothing', async () => {
      await put('p-change', order({ premiumPaid: 2 }));
      await put('p-change', order({ premiumPaid: 3, total: 200 }));
      const o = await read('p-change');
      const rows = await policies(o.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ premiumPaid: 3, insuredAmount: 200 });
      expect((await events('p-change')).map((e) => e.topic)).toEqual(['protection/added']);
    });

    it.each([
      ['a cancellation', { premiumPaid: 5, policyCancelledAt: '2026-02-01T00:00:00Z' }, 'CANCELLED'],
      ['a premium of 0', { premiumPaid: 0 }, 'PREMIUM_REMOVED'],
      ['an omitted premium', {}, 'PREMIUM_REMOVED'],
    ])('losing it by %s sets removedAt and records protection/removed', async (_name, change, reason) => {
      const id = `p-lose-${reason}-${Object.keys(change).length}`;
      await put(id, order({ premiumPaid: 5 }));
      const before = await read(id);
      await put(id, order(change));
      await put(id, order(change));
      const after = await read(id);
      expect(after.protection).toEqual({ status: 'REMOVED', policyId: before.protection.policyId });
      const evts = await events(id);
      expect(evts.map((e) => e.topic)).toEqual(['protection/added', 'protection/removed']);
      const [policy] = await policies(after.id);
      expect(policy!.removedAt).toBeInstanceOf(Date);
      expect(evts[1]!.body).toEqual({
        orderId: after.id,
        sourceOrderId: id,
        storeId: owner.store.id,
        policyId: before.protection.policyId,
        premiumPaid: 5,
        currency: 'USD',
        removedAt: policy!.removedAt!.toISOString(),
        reason,
      });
    });

    it('regaining protection starts a new policy period', async () => {
      await put('p-again', order({ premiumPaid: 1 }));
      await put('p-again', order({ premiumPaid: 0 }));
      await put('p-again', order({ premiumPaid: 1 }));
      const o = await read('p-again');
      const rows = await policies(o.id);
      expect(rows).toHaveLength(2);
      expect(o.protection).toEqual({ status: 'ACTIVE', policyId: rows[1]!.id });
      expect((await events('p-again')).map((e) => e.topic)).toEqual([
        'protection/added',
        'protection/removed',
        'protection/added',
      ]);
    });

    it('deleting a protected order removes its policy (ORDER_DELETED)', async () => {
      await put('p-del', order({ premiumPaid: 7 }));
      const o = await read('p-del');
      await del('p-del');
      const evts = await events('p-del');
      expect(evts.map((e) => e.topic)).toEqual(['protection/added', 'protection/removed']);
      expect(evts[1]!.body).toMatchObject({ reason: 'ORDER_DELETED', policyId: o.protection.policyId });
      const [policy] = await policies(o.id);
      expect(policy).toMatchObject({ removalReason: 'ORDER_DELETED' });
      expect(policy!.deletedAt).toBeInstanceOf(Date);
    });

    it('an order that was never protected records nothing, created, changed or deleted', async () => {
      await put('p-none', order());
      await put('p-none', order({ premiumPaid: 0 }));
      await del('p-none');
      expect(await events('p-none')).toEqual([]);
    });

    it('ten concurrent PUTs of one new protected order: one order, one policy, one protection/added', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, () => put('p-race', order({ premiumPaid: 9.99 })).then((r) => r.status)),
      );
      expect(results).toEqual(Array(10).fill(200));
      const orders = await server.db
        .selectFrom('orders')
        .select('id')
        .where('storeId', '=', owner.store.id)
        .where('sourceOrderId', '=', 'p-race')
        .execute();
      expect(orders).toHaveLength(1);
      expect(await policies(orders[0]!.id)).toHaveLength(1);
      expect((await events('p-race')).map((e) => e.topic)).toEqual(['protection/added']);
    });

    it('concurrent protect and unprotect PUTs leave the policy matching the last committed order', async () => {
      for (let round = 0; round < 5; round++) {
        const id = `p-flip-${round}`;
        await Promise.all(Array.from({ length: 8 }, (_, i) => put(id, order({ premiumPaid: i % 2 === 0 ? 3 : 0 }))));
        const o = await read(id);
        const active = o.premiumPaid !== null && o.premiumPaid > 0;
        expect(o.protection.status).toBe(active ? 'ACTIVE' : 'REMOVED');
        const rows = await policies(o.id);
        expect(rows.filter((p) => p.removedAt === null)).toHaveLength(active ? 1 : 0);
        const topics = (await events(id)).map((e) => e.topic);
        // Events alternate added/removed, one per policy transition.
        expect(topics.filter((t) => t === 'protection/added')).toHaveLength(rows.length);
        expect(topics.filter((t) => t === 'protection/removed')).toHaveLength(rows.length - (active ? 1 : 0));
      }
    });

    it('a write that fails after the order row rolls back the order, its policy and its event', async () => {
      // A database fault in the policy statement (a trigger refusing one premium), after the
      // order row was written in the same transaction.
      await sql`
        create function refuse_policy() returns trigger language plpgsql as $$
        begin
          if new.premium_paid = 666 then raise exception 'refused'; end if;
          return new;
        end $$;
        create trigger refuse_policy before insert on protection_policies
          for each row execute function refuse_policy();
      `.execute(server.db);
      try {
        const res = await put('p-rollback', order({ premiumPaid: 666 }));
        expect(res.status).toBe(500);
        expect(await res.json()).toEqual({
          statusCode: 500,
          message: 'internal server error',
          error: 'Internal Server Error',
        });
        expect((await get('p-rollback')).status).toBe(404);
        expect(await events('p-rollback')).toEqual([]);
      } finally {
        await sql`drop trigger refuse_policy on protection_policies; drop function refuse_policy()`.execute(server.db);
      }
    });
  });

  describe('fulfillments (D20)', () => {
    const fpath = (o: string, f: string) => `/v1/orders/${o}/fulfillments/${f}`;
    const putF = (o: string, f: string, json: unknown) =>
      server.request(fpath(o, f), { method: 'PUT', headers: bearer(token), json });
    const list = (o: string) => server.api(token).orders.listFulfillments({ params: { sourceOrderId: o } });
    const fulfillments = async (o: string) => answered(await list(o), 200);
    const cancelF = (o: string, f: string) =>
      server.api(token).orders.cancelFulfillment({ params: { sourceOrderId: o, sourceFulfillmentId: f } });

    it('creates, lists, replaces and cancels a fulfillment; cancelled ones stay listed', async () => {
      await put(
        'f-1',
        order({
          lineItems: [
            { sourceItemId: 'i1', quantity: 2 },
            { sourceItemId: 'i2', quantity: 1 },
          ],
        }),
      );
      expect((await list('f-1')).body).toEqual([]);
      const res = await putF('f-1', 'ful-1', {
        fulfillmentStatus: 'IN_TRANSIT',
        sourceItemIds: [{ sourceItemId: 'i1', quantity: 2 }],
        trackingCompany: 'UPS',
        trackingNumber: ['1Z999'],
        trackingUrl: ['https://ups.example.com/1Z999'],
        createdAt: '2026-02-01T10:00:00+02:00',
      });
      expect(res.status).toBe(200);
      let body = await fulfillments('f-1');
      expect(body).toEqual([
        {
          sourceFulfillmentId: 'ful-1',
          sourceItemIds: [{ sourceItemId: 'i1', quantity: 2 }],
          fulfillmentStatus: 'IN_TRANSIT',
          trackingCompany: 'UPS',
          trackingNumber: ['1Z999'],
          trackingUrl: ['https://ups.example.com/1Z999'],
          createdAt: '2026-02-01T08:00:00.000Z',
          updatedAt: expect.stringMatching(/Z$/),
          cancelledAt: null,
        },
      ]);
      await putF('f-1', 'ful-1', { fulfillmentStatus: 'DELIVERED' });
      await putF('f-1', 'ful-2', {
        fulfillmentStatus: 'UNFULFILLED',
        sourceItemIds: [{ sourceItemId: 'i2', quantity: 1 }],
      });
      body = await fulfillments('f-1');
      expect(body.map((f) => [f.sourceFulfillmentId, f.fulfillmentStatus, f.trackingCompany])).toEqual([
        ['ful-1', 'DELIVERED', null],
        ['ful-2', 'UNFULFILLED', null],
      ]);
      // Replace without createdAt keeps the first one.
      expect(body[0]!.createdAt).toBe('2026-02-01T08:00:00.000Z');
      expect(answered(await cancelF('f-1', 'ful-1'), 200)).toEqual({ status: 'ok' });
      body = await fulfillments('f-1');
      const cancelledAt = body[0]!.cancelledAt!;
      expect(cancelledAt).toMatch(/Z$/);
      // Cancelling again keeps the first time; the fulfillment stays in the list.
      await cancelF('f-1', 'ful-1');
      body = await fulfillments('f-1');
      expect(body.map((f) => f.cancelledAt)).toEqual([cancelledAt, null]);
    });

    it('refuses items that are not line items of the order (400, nothing written)', async () => {
      await put('f-items', order({ lineItems: [{ sourceItemId: 'i1', quantity: 1 }] }));
      const res = await putF('f-items', 'ful-x', {
        fulfillmentStatus: 'FULFILLED',
        sourceItemIds: [
          { sourceItemId: 'i1', quantity: 1 },
          { sourceItemId: 'zz', quantity: 1 },
        ],
      });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).issues!.map((i) => i.path)).toEqual(['body.sourceItemIds.1.sourceItemId']);
      expect((await list('f-items')).body).toEqual([]);
    });

    it('accepts any item ids while the order has no known line items', async () => {
      await put('f-unknown', order());
      const res = await putF('f-unknown', 'ful-y', {
        fulfillmentStatus: 'FULFILLED',
        sourceItemIds: [{ sourceItemId: 'whatever', quantity: 3 }],
      });
      expect(res.status).toBe(200);
    });

    it('answers 404 for an unknown order or fulfillment', async () => {
      expect((await list('f-missing')).status).toBe(404);
      expect((await putF('f-missing', 'a', { fulfillmentStatus: 'FULFILLED' })).status).toBe(404);
      await put('f-2', order());
      expect((await cancelF('f-2', 'nope')).status).toBe(404);
    });

    it('refuses an unknown status and an unknown property', async () => {
      await put('f-3', order());
      const bad = await putF('f-3', 'a', { fulfillmentStatus: 'LOST' });
      expect(bad.status).toBe(400);
      const extra = await putF('f-3', 'a', { fulfillmentStatus: 'FULFILLED', sourceFulfillmentId: 'a' });
      expect(extra.status).toBe(400);
      expect((await list('f-3')).body).toEqual([]);
    });
  });
});
