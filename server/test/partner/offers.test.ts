import { SCOPES, type Scope } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type TInsuranceQuote } from '../../../sdk/src/index';
import { currentHour, OfferTokens } from '../../src/lib/offer-tokens';
import { orderBody } from '../harness/claims';
import { answered, bearer, createApp, createOwner, errorOf, installWithToken, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D55: the quote carries the storefront offer (the widget configs and a signed offer token),
 * the order PUT takes the token back (and refuses one it did not issue for the store, or an
 * expired one, writing nothing), and the order reads answer what was shown and chosen.
 */
describe('the storefront offer on the quote and the order (D55)', () => {
  let server: TestServer;
  let owner: Owner;
  let other: Owner;
  let clientId: string;
  let token: string;
  let otherToken: string;
  const ALL = [...SCOPES] as Scope[];

  const quote = (query: string, headers: Record<string, string> = {}) =>
    server.request(`/v1/quote/insurance?storeId=${owner.store.id}&${query}`, { headers });
  const quoteBody = async (query: string, headers: Record<string, string> = {}) => {
    const res = await quote(query, headers);
    expect(res.status).toBe(200);
    return (await res.json()) as TInsuranceQuote;
  };
  const putOrder = (tok: string, sourceOrderId: string, body: object) =>
    server.request(`/v1/orders/${sourceOrderId}`, { method: 'PUT', headers: bearer(tok), json: body });
  const getOrder = async (sourceOrderId: string) =>
    answered(await server.api(token).orders.get({ params: { sourceOrderId } }), 200);

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'offers');
    other = await createOwner(server.db, 'offers-other');
    clientId = (await createApp(server, owner.user.id, { requestedScopes: ALL })).clientId;
    token = (await installWithToken(server, clientId, owner.store.id, ALL)).accessToken;
    otherToken = (await installWithToken(server, clientId, other.store.id, ALL)).accessToken;
  });
  afterAll(async () => {
    await server.close();
  });

  it("answers the placement's widget config and the info modal's, the merchant's without a cohort", async () => {
    const cart = await quoteBody('subtotal=125');
    const configs = answered(await server.api(token).widgets.list(), 200).data;
    const of = (type: string) => configs.find((c) => c.type === type)!;
    expect(cart.widget).toEqual({
      config: {
        id: of('CART').id,
        type: 'CART',
        status: of('CART').status,
        config: of('CART').config,
        updatedAt: of('CART').updatedAt,
        source: 'merchant',
      },
      infoModal: expect.objectContaining({ id: of('INFO_MODAL').id, type: 'INFO_MODAL', source: 'merchant' }),
    });
    const checkout = await quoteBody('subtotal=125&placement=checkout');
    expect(checkout.widget?.config).toMatchObject({ id: of('CHECKOUT').id, type: 'CHECKOUT' });
    expect((await quote('placement=basket')).status).toBe(400);
  });

  it('signs an offer for an eligible subtotal: the same token within the hour, expiring 7 days after it', async () => {
    const first = await quoteBody('subtotal=125');
    expect(first.quote).toMatchObject({ eligible: true, customerAmount: 2.5 });
    expect(first.offer!.token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(first.offer!.expiresAt).toBe(new Date((currentHour() + 7 * 24) * 3_600_000).toISOString());
    // A second read with a cache-busting parameter is computed again: the same token.
    const again = await quoteBody('subtotal=125&x=1');
    expect(again.offer).toEqual(first.offer);
    expect((await quoteBody('subtotal=126')).offer!.token).not.toBe(first.offer!.token);
    expect((await quoteBody('')).offer).toBeUndefined();
    expect((await quoteBody('subtotal=2000000')).offer).toBeUndefined();
  });

  it("records the offer with the order and answers it, matching the order's protection", async () => {
    const offer = (await quoteBody('subtotal=125')).offer!;
    const decidedAt = '2026-11-29T10:00:00.000Z';
    const protectionOffer = { token: offer.token, selected: true, preselected: false, decidedAt };
    const written = await putOrder(token, 'o-sel', { ...orderBody({ premiumPaid: 2.5 }), protectionOffer });
    expect(written.status).toBe(200);
    const configs = answered(await server.api(token).widgets.list(), 200).data;
    const cart = configs.find((c) => c.type === 'CART')!;
    expect((await getOrder('o-sel')).offer).toEqual({
      amount: 2.5,
      currency: 'USD',
      widgetConfigId: cart.id,
      widgetConfigUpdatedAt: cart.updatedAt,
      partnerApplicationId: null,
      partnerVariantKey: null,
      preselected: false,
      selected: true,
      decidedAt,
      matchesPolicy: true,
    });
    // Written again without the offer: the record stays; with a premium that differs, it no longer matches.
    expect((await putOrder(token, 'o-sel', orderBody({ premiumPaid: 3 }))).status).toBe(200);
    expect((await getOrder('o-sel')).offer).toMatchObject({ selected: true, matchesPolicy: false });
    // Declined and not protected matches; declined but protected does not.
    const declined = { ...protectionOffer, selected: false };
    expect((await putOrder(token, 'o-no', { ...orderBody(), protectionOffer: declined })).status).toBe(200);
    expect((await getOrder('o-no')).offer).toMatchObject({ selected: false, matchesPolicy: true });
    const sneaked = { ...orderBody({ premiumPaid: 2.5 }), protectionOffer: declined };
    expect((await putOrder(token, 'o-sneaked', sneaked)).status).toBe(200);
    expect((await getOrder('o-sneaked')).offer!.matchesPolicy).toBe(false);
    expect((await getOrder('o-sneaked')).protection.status).toBe('ACTIVE');
    // An order that never carried an offer answers null.
    expect((await putOrder(token, 'o-none', orderBody())).status).toBe(200);
    expect((await getOrder('o-none')).offer).toBeNull();
  });

  it('refuses a forged, altered, expired or other store token with 400 naming the field, writing nothing', async () => {
    const offer = (await quoteBody('subtotal=125')).offer!;
    const [text, mac] = offer.token.split('.') as [string, string];
    const fields = JSON.parse(Buffer.from(text, 'base64url').toString()) as unknown[];
    fields[5] = 0.01; // the amount shown
    const altered = `${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${mac}`;
    const forged = new OfferTokens(Buffer.alloc(32, 7)).issue({
      storeId: owner.store.id,
      policyType: 'SHIPPING',
      subtotal: 125,
      currency: 'USD',
      amount: 0.01,
      ruleSetId: 'rs_x',
      ruleId: null,
      widgetConfigId: null,
      widgetConfigUpdatedAt: null,
      partnerApplicationId: null,
      partnerVariantKey: null,
      hour: currentHour(),
    }).token;
    const expired = new OfferTokens(server.config.secretKey).issue({
      storeId: owner.store.id,
      policyType: 'SHIPPING',
      subtotal: 125,
      currency: 'USD',
      amount: 2.5,
      ruleSetId: 'rs_x',
      ruleId: null,
      widgetConfigId: null,
      widgetConfigUpdatedAt: null,
      partnerApplicationId: null,
      partnerVariantKey: null,
      hour: currentHour() - 7 * 24,
    }).token;
    const cases: [string, string, string, RegExp][] = [
      ['altered', token, altered, /issued|altered/],
      ['forged', token, forged, /issued|altered/],
      ['garbage', token, 'not-a-token', /issued|altered/],
      ['expired', token, expired, /expired/],
      ["another store's", otherToken, offer.token, /another store/],
    ];
    for (const [name, tok, bad, message] of cases) {
      const protectionOffer = { token: bad, selected: true, preselected: false, decidedAt: '2026-11-29T10:00:00Z' };
      const res = await putOrder(tok, `o-bad-${name}`, { ...orderBody({ premiumPaid: 2.5 }), protectionOffer });
      expect(res.status, name).toBe(400);
      const body = await errorOf(res);
      expect(body.issues, name).toEqual([
        { path: 'body.protectionOffer.token', message: expect.stringMatching(message) },
      ]);
      const readBack = await server.request(`/v1/orders/o-bad-${name}`, { headers: bearer(tok) });
      expect(readBack.status, name).toBe(404);
    }
    const rows = await server.db.selectFrom('orderOffers').select('orderId').execute();
    expect(rows).toHaveLength(3);
  });

  it("binds the cohort when the headers name one: its widget config and the order's record", async () => {
    const ctx = answered(await server.api(token).settings.createContext({ body: { name: 'AB' } }), 201).data;
    const created = answered(
      await server.api(token).cohorts.createWidget({
        params: { contextId: ctx.id },
        body: { variantKey: 'green', type: 'CART', config: { label: 'Protect it for {price}' } },
      }),
      201,
    ).data;
    const headers = { 'x-svc-partner-app-id': clientId, 'x-svc-partner-variant': 'green' };
    const body = await quoteBody('subtotal=125', headers);
    expect(body.widget!.config).toMatchObject({ id: created.id, source: 'partner', config: created.config });
    expect(body.widget!.infoModal!.source).toBe('merchant');
    const protectionOffer = {
      token: body.offer!.token,
      selected: true,
      preselected: true,
      decidedAt: '2026-11-29T10:00:00Z',
    };
    expect((await putOrder(token, 'o-green', { ...orderBody({ premiumPaid: 2.5 }), protectionOffer })).status).toBe(
      200,
    );
    expect((await getOrder('o-green')).offer).toMatchObject({
      widgetConfigId: created.id,
      partnerApplicationId: clientId,
      partnerVariantKey: 'green',
      preselected: true,
      matchesPolicy: true,
    });
  });

  it('binds the same cohort from query parameters, so the read needs no CORS preflight; the headers decide when given', async () => {
    const headers = { 'x-svc-partner-app-id': clientId, 'x-svc-partner-variant': 'green' };
    const byHeaders = await quoteBody('subtotal=125', headers);
    const byQuery = await quoteBody(`subtotal=125&partnerAppId=${clientId}&partnerVariant=green`);
    expect(byQuery.widget!.config).toEqual(byHeaders.widget!.config);
    expect(byQuery.widget!.config!.source).toBe('partner');
    // The same inputs in the same hour sign the same token: the cohort is bound either way.
    expect(byQuery.offer!.token).toBe(byHeaders.offer!.token);
    const merchant = await quoteBody('subtotal=125');
    expect(merchant.widget!.config!.source).toBe('merchant');
    const overruled = await quoteBody(`subtotal=125&partnerAppId=${clientId}&partnerVariant=green`, {
      'x-svc-partner-variant': 'green',
    });
    expect(overruled.widget!.config!.source).toBe('merchant');
    const malformed = await quoteBody(`subtotal=125&partnerAppId=${clientId}&partnerVariant=${'x'.repeat(300)}`);
    expect(malformed.offer!.token).toBe(merchant.offer!.token);
    expect((await quote(`subtotal=125&partnerVariant=${'x'.repeat(5000)}`)).status).toBe(400);
  });

  it('takes protectionOffer and answers offer in every dated version', async () => {
    const offer = (await quoteBody('subtotal=125')).offer!;
    for (const apiVersion of ['2025-01-01', '2026-12-01'] as const) {
      const old = createClient({ baseUrl: server.baseUrl, accessToken: token, retry: false, apiVersion });
      const sourceOrderId = `o-v-${apiVersion}`;
      const protectionOffer = {
        token: offer.token,
        selected: true,
        preselected: false,
        decidedAt: '2026-11-29T10:00:00Z',
      };
      const put = await old.orders.upsert({
        params: { sourceOrderId },
        body: { ...orderBody({ premiumPaid: 2.5 }), protectionOffer },
      });
      expect(put.status, apiVersion).toBe(200);
      const read = await old.orders.get({ params: { sourceOrderId } });
      expect(read.status, apiVersion).toBe(200);
      expect(JSON.stringify(read.body), apiVersion).toContain('"matchesPolicy":true');
    }
  });
});
