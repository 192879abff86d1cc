import { SCOPES, type Scope } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TCohortPriceSetCreateBodyInput, TQuoteRequestInput } from '../../../sdk/src/index';
import { uninstall } from '../../src/domain/uninstall/uninstall';
import {
  answered,
  bearer,
  createApp,
  createOwner,
  installWithToken,
  type Owner,
  withinOneRateWindow,
} from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The partner surface: contexts (D27, D37), cohort price sets and widget configs (D28, D30),
 * POST /v2/quote (D31, D38) and the cohort-aware public reads (D29), through real HTTP.
 */
describe('partner surface', () => {
  let server: TestServer;
  let owner: Owner;
  let other: Owner;
  let clientId: string;
  let otherClientId: string;
  let all: string;
  let contextId: string;

  const ALL = [...SCOPES] as Scope[];
  const token = async (scopes: Scope[], app = clientId, storeId = owner.store.id) =>
    (await installWithToken(server, app, storeId, scopes)).accessToken;
  /** A request the client's types would refuse (or a path it cannot spell): sent raw. */
  const raw = (method: string, path: string, tok: string, json?: unknown) =>
    server.request(path, { method, headers: bearer(tok), ...(json !== undefined ? { json } : {}) });
  const settings = (tok: string) => server.api(tok).settings;
  const cohorts = (tok: string) => server.api(tok).cohorts;

  const shippingRules: TCohortPriceSetCreateBodyInput['rules'] = [
    { min: 0, max: 100, terms: { customer: { amount: 4, type: 'flat' } } },
    {
      min: 100,
      max: 100_000,
      terms: { customer: { amount: 1, type: 'percentage' }, brand: { amount: 1, type: 'fixed' } },
    },
  ];

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'partner');
    other = await createOwner(server.db, 'partner-other');
    clientId = (await createApp(server, owner.user.id, { requestedScopes: ALL })).clientId;
    otherClientId = (await createApp(server, owner.user.id, { requestedScopes: ALL })).clientId;
    all = await token(ALL);
  });
  afterAll(async () => {
    await server.close();
  });

  describe('contexts', () => {
    it('creates the one context of (store, app): 201, then 409', async () => {
      const ctx = answered(await settings(all).createContext({ body: { name: 'Experiments' } }), 201).data;
      expect(ctx).toEqual({
        id: expect.stringMatching(/^ctx_/),
        applicationId: clientId,
        name: 'Experiments',
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: null,
      });
      contextId = ctx.id;
      const again = await settings(all).createContext({ body: { name: 'Again' } });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ statusCode: 409, error: 'Conflict' });
    });

    it('refuses a name outside 1-128 characters and unknown fields (400)', async () => {
      for (const body of [{ name: '' }, { name: 'x'.repeat(129) }, { name: 'ok', variantKey: 'a' }, {}]) {
        expect((await raw('POST', '/v2/settings/context', all, body)).status).toBe(400);
      }
    });

    it("lists only the calling app's context", async () => {
      expect(answered(await settings(all).listContexts(), 200).data).toEqual([
        expect.objectContaining({ id: contextId, applicationId: clientId }),
      ]);
      const otherApp = await token(ALL, otherClientId);
      expect(answered(await settings(otherApp).listContexts(), 200).data).toEqual([]);
    });

    it('resolves merchant settings and pricing, filtered to the readable pricing types (D16, D37)', async () => {
      const view = answered(await settings(all).getContext({ params: { contextId } }), 200).data;
      expect(view.overrides.storeCreditBonus).toBeNull();
      expect(view.resolvedSettings).toMatchObject({ storeCreditBonus: 0, sendSmsUpdates: false });
      expect(view.resolvedVariantKey).toBeNull();
      expect(view.resolvedPricingRules.map((s) => [s.type, s.source, s.variantKey])).toEqual([
        ['SHIPPING', 'merchant', null],
        ['EXTENDED_WARRANTY', 'merchant', null],
      ]);
      const storeOnly = await token(['store:read']);
      const narrow = answered(await settings(storeOnly).getContext({ params: { contextId } }), 200).data;
      expect(narrow.resolvedPricingRules).toEqual([]);
    });

    it('PATCH is sparse: sent fields become overrides, omitted ones stay inherited, null is 400', async () => {
      const update = (tok: string, body: Parameters<ReturnType<typeof settings>['updateContext']>[0]['body']) =>
        settings(tok).updateContext({ params: { contextId }, body });
      const view = answered(await update(all, { sendSmsUpdates: true, storeCreditBonus: 7.5 }), 200).data;
      expect(view.updatedAt).toMatch(/Z$/);
      expect(view.overrides).toMatchObject({
        sendSmsUpdates: true,
        storeCreditBonus: 7.5,
        enableCancelAfterPurchase: null,
      });
      expect(view.resolvedSettings).toMatchObject({
        sendSmsUpdates: true,
        storeCreditBonus: 7.5,
        sendConfirmationEmail: true,
      });
      const renamed = answered(await update(all, { name: 'Renamed' }), 200).data;
      expect(renamed.name).toBe('Renamed');
      expect(renamed.overrides.storeCreditBonus).toBe(7.5);
      for (const body of [{ sendSmsUpdates: null }, { storeCreditMaxPercentage: 101 }, { name: null }]) {
        const bad = await raw('PATCH', `/v2/settings/context/${contextId}`, all, body);
        expect(bad.status).toBe(400);
      }
    });

    it('PATCH of store-credit fields needs store-credit:update; other fields do not', async () => {
      const noCredit = await token(['partner-context:update', 'store:read']);
      const update = (body: { storeCreditBonus: number } | { sendSmsUpdates: boolean }) =>
        settings(noCredit).updateContext({ params: { contextId }, body });
      expect((await update({ storeCreditBonus: 1 })).status).toBe(403);
      expect((await update({ sendSmsUpdates: false })).status).toBe(200);
    });

    it("another app's or another store's token gets 404 for the context, exactly like a missing one (D7)", async () => {
      const otherApp = await token(ALL, otherClientId);
      const otherStore = await token(ALL, clientId, other.store.id);
      for (const tok of [otherApp, otherStore]) {
        const calls = [
          (id: string) => settings(tok).getContext({ params: { contextId: id } }),
          (id: string) => settings(tok).updateContext({ params: { contextId: id }, body: { name: 'x' } }),
          (id: string) => settings(tok).deleteContext({ params: { contextId: id } }),
        ];
        for (const send of calls) {
          const res = await send(contextId);
          const missing = await send('ctx_missing');
          expect(res.status).toBe(404);
          expect(res.body).toEqual(missing.body);
        }
        expect((await cohorts(tok).listPriceSets({ params: { contextId } })).status).toBe(404);
      }
    });
  });

  describe('cohort price sets', () => {
    let priceSetId: string;
    const create = (tok: string, body: TCohortPriceSetCreateBodyInput) =>
      cohorts(tok).createPriceSet({ params: { contextId }, body });

    it('creates one per (variantKey, type); flat is stored as fixed; a duplicate is 409', async () => {
      const set = answered(
        await create(all, {
          variantKey: 'test-a',
          type: 'SHIPPING',
          rules: shippingRules,
          autoAddCountryBlockList: ['us'],
        }),
        201,
      ).data;
      priceSetId = set.id;
      expect(set).toMatchObject({
        contextId,
        variantKey: 'test-a',
        type: 'SHIPPING',
        automaticallyAddToCart: false,
        autoAddCountryBlockList: ['US'],
        autoAddStateBlockList: [],
        updatedByApplicationId: clientId,
      });
      expect(set.rules.map((r) => [r.min, r.max, r.minValue, r.terms.customer?.type])).toEqual([
        [0, 100, 0, 'fixed'],
        [100, 100_000, 100, 'percentage'],
      ]);
      const dup = await create(all, { variantKey: 'test-a', type: 'SHIPPING', rules: [] });
      expect(dup.status).toBe(409);
      const ew = await create(all, {
        variantKey: 'test-a',
        type: 'EXTENDED_WARRANTY',
        rules: [{ min: 0, max: 1000, terms: { customer: { amount: 10, type: 'percentage' } } }],
      });
      expect(ew.status).toBe(201);
    });

    it('refuses overlapping rules, min >= max, percentages over 100 and negative amounts (D30)', async () => {
      const bad = [
        [
          { min: 0, max: 50, terms: {} },
          { min: 40, max: 60, terms: {} },
        ],
        [{ min: 10, max: 10, terms: {} }],
        [{ min: 0, max: 10, terms: { customer: { amount: 101, type: 'percentage' } } }],
        [{ min: 0, max: 10, terms: { brand: { amount: -1, type: 'fixed' } } }],
      ];
      for (const rules of bad) {
        const res = await raw('POST', `/v2/settings/context/${contextId}/pricing`, all, {
          variantKey: 'bad',
          type: 'SHIPPING',
          rules,
        });
        expect(res.status).toBe(400);
      }
    });

    it('a create naming a type the token cannot write answers 403 naming the scope', async () => {
      const shippingOnly = await token(['partner-context:update', 'pricing:shipping-insurance:update']);
      const res = await create(shippingOnly, { variantKey: 'b', type: 'EXTENDED_WARRANTY', rules: [] });
      expect(answered(res, 403).message).toContain('pricing:extended-warranty:update');
    });

    it('lists filtered by variantKey and by the readable types; 403 with no pricing read scope', async () => {
      const list = (tok: string, variantKey?: string) =>
        cohorts(tok).listPriceSets({
          params: { contextId },
          ...(variantKey !== undefined ? { query: { variantKey } } : {}),
        });
      expect(answered(await list(all), 200).data.length).toBe(2);
      expect(answered(await list(all, 'other'), 200).data).toEqual([]);
      const shippingRead = await token(['pricing:shipping-insurance:read']);
      const sets = answered(await list(shippingRead, 'test-a'), 200).data;
      expect(sets.map((s) => s.type)).toEqual(['SHIPPING']);
      expect((await list(await token(['store:read']))).status).toBe(403);
      expect((await list(all, 'bad key')).status).toBe(400);
    });

    it('hides a set of an unreadable type (404), as a missing one', async () => {
      const ewRead = await token(['pricing:extended-warranty:read']);
      const get = (tok: string, id: string) => cohorts(tok).getPriceSet({ params: { contextId, priceSetId: id } });
      expect((await get(ewRead, priceSetId)).status).toBe(404);
      expect((await get(all, priceSetId)).status).toBe(200);
      expect((await get(all, 'ps_missing')).status).toBe(404);
    });

    it('PATCH keeps omitted fields, may repeat type and variantKey unchanged, and refuses changing them (400)', async () => {
      const params = { contextId, priceSetId };
      const set = answered(
        await cohorts(all).updatePriceSet({
          params,
          body: { type: 'SHIPPING', variantKey: 'test-a', automaticallyAddToCart: true },
        }),
        200,
      ).data;
      expect(set).toMatchObject({ automaticallyAddToCart: true, autoAddCountryBlockList: ['US'] });
      expect(set.rules).toHaveLength(2);
      for (const body of [{ type: 'EXTENDED_WARRANTY' as const }, { variantKey: 'test-b' }]) {
        const bad = await cohorts(all).updatePriceSet({ params, body });
        expect(bad.status).toBe(400);
        expect(bad.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      }
      const ewWrite = await token(['partner-context:update', 'pricing:extended-warranty:update']);
      expect((await cohorts(ewWrite).updatePriceSet({ params, body: { automaticallyAddToCart: false } })).status).toBe(
        404,
      );
      expect(answered(await cohorts(all).getPriceSet({ params }), 200).data).toMatchObject({
        automaticallyAddToCart: true,
      });
    });

    it('keeps the ids of rules sent back, and refuses an id the set does not have (400)', async () => {
      const params = { contextId, priceSetId };
      const current = answered(await cohorts(all).getPriceSet({ params }), 200).data;
      const [first, second] = current.rules;
      const updated = answered(
        await cohorts(all).updatePriceSet({
          params,
          body: {
            rules: [
              { id: first!.id, min: first!.min, max: first!.max, terms: { customer: { amount: 4, type: 'fixed' } } },
              { id: second!.id, min: second!.min, max: second!.max, terms: shippingRules[1]!.terms },
            ],
          },
        }),
        200,
      ).data;
      expect(updated.rules.map((r) => r.id)).toEqual([first!.id, second!.id]);
      const bad = await cohorts(all).updatePriceSet({
        params,
        body: { rules: [{ id: 'ru_foreign', min: 0, max: 1, terms: {} }] },
      });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ issues: [{ path: 'body.rules' }] });
    });

    it('the resolved view renders the cohort its price sets, the merchant set otherwise', async () => {
      const resolved = async (variantKey: string) =>
        answered(await settings(all).getContext({ params: { contextId }, query: { variantKey } }), 200).data;
      const view = await resolved('test-a');
      expect(view.resolvedVariantKey).toBe('test-a');
      expect(view.resolvedPricingRules.map((s) => [s.type, s.source, s.variantKey])).toEqual([
        ['SHIPPING', 'partner', 'test-a'],
        ['EXTENDED_WARRANTY', 'partner', 'test-a'],
      ]);
      const unknown = await resolved('nobody');
      expect(unknown.resolvedPricingRules.map((s) => s.source)).toEqual(['merchant', 'merchant']);
    });
  });

  describe('cohort widget configs', () => {
    let widgetId: string;

    it('creates, mirrors config as customizationValues, and refuses customizationValues on write', async () => {
      const w = answered(
        await cohorts(all).createWidget({
          params: { contextId },
          body: { variantKey: 'test-a', type: 'CART', name: 'Cart A', config: { color: 'green' } },
        }),
        201,
      ).data;
      widgetId = w.id;
      expect(w).toMatchObject({
        variantKey: 'test-a',
        type: 'CART',
        status: 'ACTIVE',
        name: 'Cart A',
        config: { color: 'green' },
        customizationValues: { color: 'green' },
      });
      expect(
        (await cohorts(all).createWidget({ params: { contextId }, body: { variantKey: 'test-a', type: 'CART' } }))
          .status,
      ).toBe(409);
      expect(
        (
          await raw('POST', `/v2/settings/context/${contextId}/widgets`, all, {
            variantKey: 'test-b',
            type: 'CHECKOUT',
            customizationValues: {},
          })
        ).status,
      ).toBe(400);
      expect(
        (await raw('PATCH', `/v2/settings/context/${contextId}/widgets/${widgetId}`, all, { customizationValues: {} }))
          .status,
      ).toBe(400);
    });

    it('updates sparsely, refuses a type change, hides unwritable types and deletes for good', async () => {
      const params = { contextId, widgetConfigId: widgetId };
      const updated = answered(
        await cohorts(all).updateWidget({ params, body: { status: 'INACTIVE', type: 'CART' } }),
        200,
      ).data;
      expect(updated).toMatchObject({ status: 'INACTIVE', name: 'Cart A', config: { color: 'green' } });
      expect((await cohorts(all).updateWidget({ params, body: { type: 'CHECKOUT' } })).status).toBe(400);
      const checkoutOnly = await token(['partner-context:update', 'widget:checkout:update', 'widget:checkout:read']);
      expect((await cohorts(checkoutOnly).getWidget({ params })).status).toBe(404);
      expect((await cohorts(checkoutOnly).deleteWidget({ params })).status).toBe(404);
      expect(answered(await cohorts(checkoutOnly).listWidgets({ params: { contextId } }), 200).data).toEqual([]);
      expect((await cohorts(all).deleteWidget({ params })).status).toBe(200);
      expect((await cohorts(all).getWidget({ params })).status).toBe(404);
      expect((await cohorts(all).deleteWidget({ params })).status).toBe(404);
    });
  });

  describe('POST /v2/quote', () => {
    const quote = async (body: TQuoteRequestInput, scopes: Scope[] = ['quote:read']) =>
      server.api(await token(scopes)).quote.create({ body });
    const quoted = async (body: TQuoteRequestInput) => answered(await quote(body), 201).data;
    /** A quote request the client's types would refuse: sent raw. */
    const quoteRaw = async (body: unknown) => raw('POST', '/v2/quote', await token(['quote:read']), body);

    it('prices with the merchant rule set by default, in the store currency (D31)', async () => {
      // merchant default: 2% of 100.50 = 2.01
      expect(await quoted({ orderTotal: 100.5 })).toEqual({
        policyType: 'SHIPPING',
        currency: 'USD',
        subtotal: 100.5,
        eligible: true,
        premium: 2.01,
        customerAmount: 2.01,
        brandAmount: 0,
        paidBy: null,
        operator: 'AND',
        ruleSetId: expect.stringMatching(/^rs_/),
        ruleId: expect.stringMatching(/^ru_/),
        duration: null,
        source: 'merchant',
        partnerVariantKey: null,
      });
    });

    it('accepts an unknown currency as informational and rounds it to 2 minor units (D43, D6)', async () => {
      expect(await quoted({ orderTotal: 100.555, currency: 'ZZZ' })).toMatchObject({
        currency: 'ZZZ',
        subtotal: 100.56,
        premium: 2.01,
      });
      // A known code keeps its own minor units: JPY has none.
      expect(await quoted({ orderTotal: 100.5, currency: 'JPY' })).toMatchObject({ subtotal: 101 });
      // The form is still checked.
      for (const currency of ['zzz', 'ZZ', 'ZZZZ', '12A'])
        expect((await quoteRaw({ orderTotal: 1, currency })).status).toBe(400);
    });

    it("quotes the calling app's cohort by variantKey, and the merchant set for an unknown key", async () => {
      // cohort test-a: [100, 100000): 1% + fixed 1 → 267.50 × 1% = 2.675 → 2.68; brand 1; premium 3.68
      const cohort = await quoted({
        variantKey: 'test-a',
        currency: 'EUR',
        lineItems: [
          { price: 200, quantity: 1 },
          { price: 33.75, quantity: 2 },
          { price: 999, quantity: 1, isShippable: false },
        ],
      });
      expect(cohort).toMatchObject({
        subtotal: 267.5,
        currency: 'EUR',
        customerAmount: 2.68,
        brandAmount: 1,
        premium: 3.68,
        source: 'partner',
        partnerVariantKey: 'test-a',
      });
      expect(await quoted({ variantKey: 'nobody', orderTotal: 50 })).toMatchObject({
        source: 'merchant',
        partnerVariantKey: null,
        premium: 1,
      });
    });

    it('multiplies extended warranty by the years and rounds per currency', async () => {
      // merchant EW default 10%: 10.05 → 1.005 × 3 = 3.015 → 3.02
      expect(await quoted({ policyType: 'EXTENDED_WARRANTY', duration: 'P3Y', orderTotal: 10.05 })).toMatchObject({
        premium: 3.02,
        duration: 'P3Y',
      });
      // JPY: 1234 × 2% = 24.68 → 25
      expect(await quoted({ orderTotal: 1234, currency: 'JPY' })).toMatchObject({ premium: 25 });
    });

    it('refuses bad bodies with 400', async () => {
      const item = { price: 1, quantity: 1 };
      for (const body of [
        {},
        { orderTotal: -1 },
        { orderTotal: 10, duration: 'P1Y' },
        { orderTotal: 10, policyType: 'EXTENDED_WARRANTY' },
        { orderTotal: 10, policyType: 'EXTENDED_WARRANTY', duration: 'P11Y' },
        { lineItems: Array.from({ length: 501 }, () => item) },
        { orderTotal: 10, currency: 'usd' },
        { orderTotal: 10, variantKey: 'bad key' },
      ]) {
        expect((await quoteRaw(body)).status, JSON.stringify(body).slice(0, 80)).toBe(400);
      }
      expect((await quote({ lineItems: Array.from({ length: 500 }, () => item) })).status).toBe(201);
    });
  });

  describe('public reads (D29)', () => {
    const insurance = (headers: Record<string, string> = {}, subtotal?: number) =>
      server.api().public.getInsurance({
        query: { store_url: owner.store.domain, ...(subtotal !== undefined ? { subtotal } : {}) },
        headers,
      });
    const cohortHeaders = (app = clientId, key = 'test-a') => ({
      'x-svc-partner-app-id': app,
      'x-svc-partner-variant': key,
    });

    it('answers the cohort selected by the headers, with source and partner fields, and quotes with it', async () => {
      const body = answered(await insurance(cohortHeaders(), 267.5), 200);
      expect(body).toMatchObject({
        source: 'partner',
        partnerApplicationId: clientId,
        partnerVariantKey: 'test-a',
        automaticallyAddToCart: true,
        autoAddCountryBlockList: ['US'],
        quote: { premium: 3.68, source: 'partner', partnerVariantKey: 'test-a' },
      });
      expect(body.rules.map((r) => r.min)).toEqual([0, 100]);
    });

    it('falls back silently on a missing, malformed or unknown app or key', async () => {
      for (const headers of <Record<string, string>[]>[
        {},
        { 'x-svc-partner-app-id': clientId },
        { 'x-svc-partner-variant': 'test-a' },
        cohortHeaders('bad id!'),
        cohortHeaders(clientId, 'x'.repeat(65)),
        cohortHeaders('svc_app_unknown'),
        cohortHeaders(otherClientId),
        cohortHeaders(clientId, 'no-such-cohort'),
      ]) {
        const body = answered(await insurance(headers), 200);
        expect(body.source).toBe('merchant');
        expect(body).not.toHaveProperty('partnerApplicationId');
      }
    });

    it('serves path-based cohort reads, answering 400 or 404 instead of falling back', async () => {
      const read = (
        key: string,
        { app = clientId, store = owner.store.domain, subtotal = undefined as number | undefined } = {},
      ) =>
        server.api().public.getPartnerInsurance({
          params: { applicationId: app },
          query: { store_url: store, key, ...(subtotal !== undefined ? { subtotal } : {}) },
        });
      const ok = answered(await read('test-a', { subtotal: 50 }), 200);
      expect(ok).toMatchObject({ source: 'partner', partnerVariantKey: 'test-a', quote: { premium: 4 } });
      expect((await read('bad key')).status).toBe(400);
      // Without the required key: sent raw.
      expect(
        (await server.request(`/v2/quote/insurance/partner/${clientId}?store_url=${owner.store.domain}`)).status,
      ).toBe(400);
      expect((await read('nobody')).status).toBe(404);
      expect((await read('test-a', { app: otherClientId })).status).toBe(404);
      expect((await read('test-a', { store: 'nowhere.example.com' })).status).toBe(404);
    });

    it('answers 400 for a malformed application id or key on the path reads, 404 for a well-formed unknown one (D43)', async () => {
      const store = `store_url=${owner.store.domain}`;
      for (const route of ['/v2/quote/insurance/partner', '/v2/widget/config/partner']) {
        for (const app of ['bad%20app!', 'a%2Fb', 'x'.repeat(65), 'caf%C3%A9']) {
          const res = await server.request(`${route}/${app}?${store}&key=test-a`);
          expect(res.status, `${route}/${app}`).toBe(400);
          expect(await res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
        }
        for (const key of ['bad%20key', 'k!', 'y'.repeat(65)]) {
          expect((await server.request(`${route}/${clientId}?${store}&key=${key}`)).status, key).toBe(400);
        }
        expect((await server.request(`${route}/svc_app_${'z'.repeat(24)}?${store}&key=test-a`)).status).toBe(404);
        expect((await server.request(`${route}/${clientId}?${store}&key=${'k'.repeat(64)}`)).status).toBe(404);
      }
    });

    it('serves cohort widget configs by path, with a type filter, ETag and 304', async () => {
      await cohorts(all).createWidget({
        params: { contextId },
        body: { variantKey: 'test-a', type: 'CHECKOUT', config: { copy: 'Protect it' } },
      });
      await cohorts(all).createWidget({ params: { contextId }, body: { variantKey: 'test-a', type: 'INFO_MODAL' } });
      const widgets = (
        query: Partial<Parameters<Client['public']['getPartnerWidgets']>[0]['query']> = {},
        headers: Record<string, string> = {},
      ) =>
        server.api().public.getPartnerWidgets({
          params: { applicationId: clientId },
          query: { storeId: owner.store.id, key: 'test-a', ...query },
          headers,
        });
      const res = await widgets({}, { origin: 'https://shop.example.com' });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('cache-control')).toBe('public, max-age=60');
      const list = answered(res, 200);
      expect(list.map((w) => w.type)).toEqual(['CHECKOUT', 'INFO_MODAL']);
      expect(list[0]).toMatchObject({
        source: 'partner',
        partnerApplicationId: clientId,
        partnerVariantKey: 'test-a',
        customizationValues: { copy: 'Protect it' },
      });
      const etag = res.headers.get('etag')!;
      expect((await widgets({}, { 'if-none-match': etag })).status).toBe(304);
      const one = answered(await widgets({ type: 'INFO_MODAL' }), 200);
      expect(one.map((w) => w.type)).toEqual(['INFO_MODAL']);
      expect((await widgets({ type: 'CART' })).status).toBe(404);
      // A type the contract does not know: sent raw.
      const base = `/v2/widget/config/partner/${clientId}?storeId=${owner.store.id}&key=test-a`;
      expect((await server.request(`${base}&type=NOPE`)).status).toBe(400);
      expect((await widgets({ key: 'nobody' })).status).toBe(404);
    });

    it('limits each address on the path reads too, from memory or not (D4)', async () => {
      const limited = await startTestServer({}, { rateLimits: { public: 3 } });
      await withinOneRateWindow();
      try {
        const read = () =>
          limited.api().public.getPartnerWidgets({
            params: { applicationId: 'svc_app_none' },
            query: { store_url: 'nowhere.example.com', key: 'k' },
          });
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) statuses.push((await read()).status);
        expect(statuses).toEqual([404, 404, 404, 429, 429]);
      } finally {
        await limited.close();
      }
    });

    it('a cohort write shows in the cached public read and in quotes within 2 s', async () => {
      const read = async () => answered(await insurance(cohortHeaders(), 50), 200).quote?.premium;
      const quoted = async () =>
        answered(await server.api(all).quote.create({ body: { orderTotal: 50, variantKey: 'test-a' } }), 201).data
          .premium;
      expect(await read()).toBe(4);
      expect(await quoted()).toBe(4);
      const set = answered(
        await cohorts(all).listPriceSets({ params: { contextId }, query: { variantKey: 'test-a' } }),
        200,
      ).data.find((s) => s.type === 'SHIPPING');
      await cohorts(all).updatePriceSet({
        params: { contextId, priceSetId: set!.id },
        body: { rules: [{ min: 0, max: 100, terms: { customer: { amount: 6, type: 'fixed' } } }] },
      });
      await expect.poll(read, { timeout: 2_000, interval: 20 }).toBe(6);
      await expect.poll(quoted, { timeout: 2_000, interval: 20 }).toBe(6);
    });

    it('an uninstall soft-deletes the context (D14): reads fall back, the context is gone on reinstall', async () => {
      const source = async () => answered(await insurance(cohortHeaders()), 200).source;
      expect(await source()).toBe('partner');
      await expect(uninstall(server.db, owner.user.id, owner.store.id, clientId)).resolves.toBeUndefined();
      await expect.poll(source, { timeout: 2_000, interval: 20 }).toBe('merchant');
      const row = await server.db
        .selectFrom('partnerContexts')
        .select('deletedAt')
        .where('id', '=', contextId)
        .executeTakeFirstOrThrow();
      expect(row.deletedAt).toBeInstanceOf(Date);
      const fresh = await token(ALL);
      expect(answered(await settings(fresh).listContexts(), 200).data).toEqual([]);
      expect((await settings(fresh).getContext({ params: { contextId } })).status).toBe(404);
      // A deleted context does not block a new one.
      expect((await settings(fresh).createContext({ body: { name: 'Second' } })).status).toBe(201);
    });

    it('DELETE soft-deletes a context', async () => {
      const fresh = await token(ALL);
      const [ctx] = answered(await settings(fresh).listContexts(), 200).data;
      const params = { contextId: ctx!.id };
      expect(answered(await settings(fresh).deleteContext({ params }), 200)).toEqual({ data: { ok: true } });
      expect((await settings(fresh).getContext({ params })).status).toBe(404);
      expect((await settings(fresh).deleteContext({ params })).status).toBe(404);
    });
  });
});
