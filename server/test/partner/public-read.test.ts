import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TInsuranceQuery } from '../../../sdk/src/index';
import { createStore } from '../../src/domain/identity/stores';
import { updateRuleSet } from '../../src/domain/partner/pricing';
import { answered, errorOf } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** GET /v1/quote/insurance (D29) for merchant defaults. */
describe('GET /v1/quote/insurance', () => {
  let server: TestServer;
  let store: { id: string; domain: string };
  beforeAll(async () => {
    server = await startTestServer();
    store = await createStore(server.db, { name: 'Shop', domain: 'Shop.Example.com', currency: 'EUR' });
  });
  afterAll(async () => {
    await server.close();
  });

  const insurance = (query: TInsuranceQuery, headers: Record<string, string> = {}) =>
    server.api().public.getInsurance({ query, headers });
  /** Raw, for queries the contract refuses and for the exact bytes and headers on the wire. */
  const read = (query: string, headers: Record<string, string> = {}) =>
    server.request(`/v1/quote/insurance?${query}`, { headers });

  it('finds the store by store_url (case-insensitive domain) and answers the merchant SHIPPING rule set', async () => {
    const body = answered(await insurance({ store_url: 'shop.example.com' }), 200);
    const ruleSet = await server.db
      .selectFrom('pricingRuleSets')
      .select('id')
      .where('storeId', '=', store.id)
      .where('type', '=', 'SHIPPING')
      .executeTakeFirstOrThrow();
    expect(body).toEqual({
      id: ruleSet.id,
      automaticallyAddToCart: false,
      autoAddStateBlockList: [],
      autoAddCountryBlockList: [],
      rules: [
        {
          id: expect.stringMatching(/^ru_/),
          min: 0,
          max: 1_000_000,
          terms: { paidBy: null, operator: 'AND', customer: { amount: 2, type: 'percentage' }, brand: null },
        },
      ],
      source: 'merchant',
      // D55: the storefront element's widget configs (no offer without a subtotal).
      widget: {
        config: expect.objectContaining({ type: 'CART', source: 'merchant' }),
        infoModal: expect.objectContaining({ type: 'INFO_MODAL', source: 'merchant' }),
      },
    });
  });

  it('finds the store by storeId, and accepts a URL-shaped store_url', async () => {
    expect((await insurance({ storeId: store.id })).status).toBe(200);
    expect((await insurance({ store_url: 'https://SHOP.example.com/' })).status).toBe(200);
  });

  it('answers 404 for an unknown store, in the D2 shape', async () => {
    const res = await insurance({ store_url: 'unknown.example.com' });
    expect(answered(res, 404)).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect((await insurance({ storeId: 'st_nope' })).status).toBe(404);
  });

  it.each([
    ['no store at all', ''],
    ['both store_url and storeId', `store_url=shop.example.com&storeId=${'x'}`],
    ['a non-numeric subtotal', 'store_url=shop.example.com&subtotal=abc'],
    ['a negative subtotal', 'store_url=shop.example.com&subtotal=-5'],
    ['an over-long storeId', `storeId=${'a'.repeat(256)}`],
  ])('answers 400 with issues for %s', async (_name, query) => {
    const res = await read(query);
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(body.issues!.length).toBeGreaterThan(0);
  });

  it('adds a D31 quote, rounded to the store currency, when a subtotal is given', async () => {
    const body = answered(await insurance({ store_url: 'shop.example.com', subtotal: 123.45 }), 200);
    expect(body.quote).toEqual({
      policyType: 'SHIPPING',
      currency: 'EUR',
      subtotal: 123.45,
      eligible: true,
      premium: 2.47,
      customerAmount: 2.47,
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

  it('quotes a subtotal outside every rule as not eligible with zero amounts', async () => {
    const body = answered(await insurance({ store_url: 'shop.example.com', subtotal: 2_000_000 }), 200);
    expect(body.quote).toMatchObject({ eligible: false, premium: 0, customerAmount: 0, brandAmount: 0, ruleId: null });
  });

  it('carries Cache-Control and an ETag, and answers 304 to a matching If-None-Match', async () => {
    const first = await read('store_url=shop.example.com');
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await read('store_url=shop.example.com', { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await read('store_url=shop.example.com', { 'if-none-match': `W/${etag}, "other"` })).status).toBe(304);
    expect((await read('store_url=shop.example.com', { 'if-none-match': '"stale"' })).status).toBe(200);
    const quoted = await read('store_url=shop.example.com&subtotal=10');
    expect(quoted.headers.get('etag')).not.toBe(etag);
  });

  it('accepts the partner headers, valid or malformed, and falls back to merchant defaults', async () => {
    for (const headers of <Record<string, string>[]>[
      { 'x-svc-partner-app-id': 'svc_app_unknown', 'x-svc-partner-variant': 'control' },
      { 'x-svc-partner-app-id': 'bad value!', 'x-svc-partner-variant': 'x'.repeat(300) },
      { 'x-svc-partner-variant': 'only-variant' },
    ]) {
      const body = answered(await insurance({ store_url: 'shop.example.com' }, headers), 200);
      expect(body.source).toBe('merchant');
      expect(body).not.toHaveProperty('partnerApplicationId');
    }
  });

  it('shows a pricing change within 2 s although answers are cached for an hour (D29 LISTEN/NOTIFY)', async () => {
    const premium = async () => answered(await insurance({ storeId: store.id, subtotal: 100 }), 200).quote?.premium;
    expect(await premium()).toBe(2);
    expect(await premium()).toBe(2);
    const ruleSet = await server.db
      .selectFrom('pricingRuleSets')
      .select('id')
      .where('storeId', '=', store.id)
      .where('type', '=', 'SHIPPING')
      .executeTakeFirstOrThrow();
    const changed = Date.now();
    await updateRuleSet(
      server.db,
      store.id,
      ruleSet.id,
      ['SHIPPING'],
      { rules: [{ min: 0, max: 500, terms: { customer: { amount: 3, type: 'fixed' } } }] },
      'svc_app_test',
      { type: 'app', id: 'svc_app_test' },
    );
    await expect.poll(premium, { timeout: 2_000, interval: 20 }).toBe(3);
    expect(Date.now() - changed).toBeLessThan(2_000);
  });

  it('answers a repeated read from memory with the same bytes and headers as the full stack', async () => {
    const query = `storeId=${store.id}&subtotal=77.7&fresh=${Date.now()}`;
    const first = await read(query, { 'x-request-id': 'first-1' });
    const second = await read(query, { 'x-request-id': 'second-2' });
    expect(second.status).toBe(200);
    expect(await second.text()).toBe(await first.text());
    for (const h of [
      'content-type',
      'cache-control',
      'etag',
      'access-control-allow-origin',
      'x-content-type-options',
    ]) {
      expect(second.headers.get(h), h).toBe(first.headers.get(h));
    }
    expect(first.headers.get('x-request-id')).toBe('first-1');
    expect(second.headers.get('x-request-id')).toBe('second-2');
  });

  it('answers browsers from any storefront origin (CORS), including the preflight', async () => {
    const res = await read('store_url=shop.example.com', { origin: 'https://shop.example.com' });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const preflight = await server.request('/v1/quote/insurance', {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example.com', 'access-control-request-headers': 'x-svc-partner-variant' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-svc-partner-variant');
  });
});
