import { SCOPES, type Scope } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TPricingRuleSetUpdateBodyInput, TWidgetConfigUpdateBody } from '../../../sdk/src/index';
import { answered, bearer, createApp, createOwner, errorOf, installWithToken, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * Merchant pricing rule sets and widget configs: per-type scopes (D16) — lists silently
 * filtered to the readable types, a resource of another type answers 404 like a missing one.
 */
describe('merchant pricing rules and widget configs', () => {
  let server: TestServer;
  let owner: Owner;
  let clientId: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'pricing');
    // A second store, whose rule sets and widget configs must stay out of reach.
    await createOwner(server.db, 'pricing-other');
    clientId = (await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] })).clientId;
    for (const r of await server.db.selectFrom('pricingRuleSets').select(['id', 'type', 'storeId']).execute()) {
      ids[`${r.storeId === owner.store.id ? 'own' : 'other'}:${r.type}`] = r.id;
    }
    for (const w of await server.db.selectFrom('widgetConfigs').select(['id', 'type', 'storeId']).execute()) {
      ids[`${w.storeId === owner.store.id ? 'own' : 'other'}:${w.type}`] = w.id;
    }
  });
  afterAll(async () => {
    await server.close();
  });

  const token = async (scopes: Scope[]) =>
    (await installWithToken(server, clientId, owner.store.id, scopes)).accessToken;
  const api = async (scopes: Scope[]) => server.api(await token(scopes));
  const updateRules = async (ruleSetId: string | undefined, scopes: Scope[], body: TPricingRuleSetUpdateBodyInput) =>
    (await api(scopes)).pricing.update({ params: { ruleSetId: ruleSetId! }, body });
  const updateWidget = async (widgetConfigId: string | undefined, scopes: Scope[], body: TWidgetConfigUpdateBody) =>
    (await api(scopes)).widgets.update({ params: { widgetConfigId: widgetConfigId! }, body });
  /** A body the client's types would refuse: sent raw. */
  const putRaw = async (path: string, scopes: Scope[], json: unknown) =>
    server.request(path, { method: 'PUT', headers: bearer(await token(scopes)), json });

  describe('GET /v2/pricing/rules', () => {
    it('answers every rule set the token may read', async () => {
      const { data } = answered(
        await (await api(['pricing:shipping-insurance:read', 'pricing:extended-warranty:read'])).pricing.list(),
        200,
      );
      expect(data.map((s) => s.type).sort()).toEqual(['EXTENDED_WARRANTY', 'SHIPPING']);
      expect(data.map((s) => s.id).sort()).toEqual([ids['own:EXTENDED_WARRANTY'], ids['own:SHIPPING']].sort());
    });

    it('silently filters out types the token cannot read; an update scope reads too (group rule)', async () => {
      const { data } = answered(await (await api(['pricing:shipping-insurance:update'])).pricing.list(), 200);
      expect(data.map((s) => s.type)).toEqual(['SHIPPING']);
    });

    it('answers 403 when the token holds no pricing read scope at all', async () => {
      const res = await (await api(['store:read'])).pricing.list();
      expect(res.status).toBe(403);
    });
  });

  describe('PUT /v2/pricing/rules/:ruleSetId', () => {
    it('replaces rules, upper-cases block lists, keeps omitted fields and answers the set in an array', async () => {
      const res = await updateRules(ids['own:SHIPPING'], ['pricing:shipping-insurance:update'], {
        rules: [
          {
            min: 100,
            max: 1000,
            terms: { customer: { amount: 5, type: 'flat' }, brand: { amount: 1, type: 'percentage' } },
          },
          { min: 0, max: 100, terms: { operator: 'OR', customer: { amount: 3, type: 'percentage' } } },
        ],
        autoAddCountryBlockList: ['us', 'Ca'],
      });
      const { data } = answered(res, 200);
      expect(data).toHaveLength(1);
      expect(data[0]).toMatchObject({
        id: ids['own:SHIPPING'],
        type: 'SHIPPING',
        automaticallyAddToCart: false,
        autoAddCountryBlockList: ['US', 'CA'],
        autoAddStateBlockList: [],
        updatedByApplicationId: clientId,
      });
      expect(data[0]!.rules.map((r) => [r.min, r.max, r.minValue, r.maxValue])).toEqual([
        [0, 100, 0, 100],
        [100, 1000, 100, 1000],
      ]);
      expect(data[0]!.rules[1]!.terms).toEqual({
        paidBy: null,
        operator: 'AND',
        customer: { amount: 5, type: 'fixed' },
        brand: { amount: 1, type: 'percentage' },
      });
      const again = await updateRules(ids['own:SHIPPING'], ['pricing:shipping-insurance:update'], {
        automaticallyAddToCart: true,
      });
      const kept = answered(again, 200).data[0]!;
      expect(kept.automaticallyAddToCart).toBe(true);
      expect(kept.rules).toEqual(data[0]!.rules);
      expect(kept.autoAddCountryBlockList).toEqual(['US', 'CA']);
    });

    it('hides a rule set of a type the token cannot write, and one of another store, as 404', async () => {
      const before = await server.db
        .selectFrom('pricingRuleSets')
        .select('rules')
        .where('id', '=', ids['own:EXTENDED_WARRANTY']!)
        .executeTakeFirstOrThrow();
      const scopes: Scope[] = ['pricing:shipping-insurance:update'];
      const hidden = await updateRules(ids['own:EXTENDED_WARRANTY'], scopes, { rules: [] });
      const foreign = await updateRules(ids['other:SHIPPING'], scopes, { rules: [] });
      const missing = await updateRules('rs_missing', scopes, { rules: [] });
      for (const res of [hidden, foreign, missing]) expect(res.status).toBe(404);
      const bodies = [hidden, foreign, missing].map((r) => r.body);
      expect(bodies[0]).toEqual(bodies[2]);
      expect(bodies[1]).toEqual(bodies[2]);
      const after = await server.db
        .selectFrom('pricingRuleSets')
        .select('rules')
        .where('id', '=', ids['own:EXTENDED_WARRANTY']!)
        .executeTakeFirstOrThrow();
      expect(after.rules).toEqual(before.rules);
    });

    it('refuses overlapping rules, an unknown rule id and 101 block-list codes with 400, changing nothing', async () => {
      const path = `/v2/pricing/rules/${ids['own:SHIPPING']}`;
      const before = await server.db
        .selectFrom('pricingRuleSets')
        .selectAll()
        .where('id', '=', ids['own:SHIPPING']!)
        .executeTakeFirstOrThrow();
      const scopes: Scope[] = ['pricing:shipping-insurance:update'];
      const overlap = {
        rules: [
          { min: 0, max: 50, terms: {} },
          { min: 40, max: 60, terms: {} },
        ],
      };
      for (const body of [
        overlap,
        { rules: [{ id: 'ru_nope', min: 0, max: 1, terms: {} }] },
        { autoAddStateBlockList: Array(101).fill('NY') },
      ]) {
        const res = await putRaw(path, scopes, body);
        expect(res.status).toBe(400);
        expect((await errorOf(res)).issues!.length).toBeGreaterThan(0);
      }
      const after = await server.db
        .selectFrom('pricingRuleSets')
        .selectAll()
        .where('id', '=', ids['own:SHIPPING']!)
        .executeTakeFirstOrThrow();
      expect(after).toEqual(before);
    });

    it('is what the shopper read prices from (within the public cache lifetime)', async () => {
      await updateRules(ids['own:SHIPPING'], ['pricing:shipping-insurance:update'], {
        rules: [{ min: 0, max: 10_000, terms: { customer: { amount: 7, type: 'fixed' } } }],
      });
      await expect
        .poll(
          async () =>
            answered(await server.api().public.getInsurance({ query: { storeId: owner.store.id, subtotal: 50 } }), 200)
              .quote?.premium,
          { timeout: 7_000, interval: 250 },
        )
        .toBe(7);
    }, 10_000);
  });

  describe('GET and PUT /v2/widget/config', () => {
    it('lists only the widget types the token can read', async () => {
      const { data } = answered(await (await api(['widget:cart:read', 'widget:checkout:update'])).widgets.list(), 200);
      expect(data.map((w) => w.type).sort()).toEqual(['CART', 'CHECKOUT']);
      for (const w of data) expect(w.customizationValues).toEqual(w.config);
      expect((await (await api(['store:read'])).widgets.list()).status).toBe(403);
    });

    it('updates a writable config and keeps omitted fields', async () => {
      const res = await updateWidget(ids['own:CART'], ['widget:cart:update'], {
        config: { color: '#123456', position: 'bottom' },
        status: 'INACTIVE',
      });
      const { data } = answered(res, 200);
      expect(data).toMatchObject({
        id: ids['own:CART'],
        type: 'CART',
        status: 'INACTIVE',
        name: 'Cart protection',
        config: { color: '#123456', position: 'bottom' },
        customizationValues: { color: '#123456', position: 'bottom' },
        updatedByApplicationId: clientId,
      });
    });

    it('hides configs of unwritable types and other stores as 404, and refuses customizationValues', async () => {
      expect((await updateWidget(ids['own:CHECKOUT'], ['widget:cart:update'], { name: 'x' })).status).toBe(404);
      expect((await updateWidget(ids['other:CART'], ['widget:cart:update'], { name: 'x' })).status).toBe(404);
      const legacy = await putRaw(`/v2/widget/config/${ids['own:CART']}`, ['widget:cart:update'], {
        customizationValues: {},
      });
      expect(legacy.status).toBe(400);
    });
  });
});
