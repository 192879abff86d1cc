import { SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createOwner, installWithToken, type Owner } from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import { type Client, createClient, unwrap } from '../src/index';

/**
 * Every route of the partner surface through the SDK against the real server: contexts
 * (D27), cohort price sets and widget configs (D28), the quote (D31) and the three public
 * reads (D29).
 */
describe('SDK: partner surface', () => {
  let server: TestServer;
  let owner: Owner;
  let client: Client;
  let shopper: Client;
  let clientId: string;

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createOwner(server.db, 'sdk-partner');
    clientId = (await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] })).clientId;
    const { accessToken } = await installWithToken(server, clientId, owner.store.id, [...SCOPES]);
    client = createClient({ baseUrl: server.baseUrl, accessToken });
    shopper = createClient({ baseUrl: server.baseUrl });
  });
  afterAll(async () => {
    await server.close();
  });

  it('drives a context, its cohorts, a quote and the public reads', async () => {
    const ctx = unwrap(await client.settings.createContext({ body: { name: 'SDK' } })).data;
    expect(ctx.applicationId).toBe(clientId);
    expect((await client.settings.createContext({ body: { name: 'again' } })).status).toBe(409);
    expect(unwrap(await client.settings.listContexts()).data.map((c) => c.id)).toEqual([ctx.id]);

    const params = { contextId: ctx.id };
    const set = unwrap(
      await client.cohorts.createPriceSet({
        params,
        body: {
          variantKey: 'sdk',
          type: 'SHIPPING',
          rules: [{ min: 0, max: 1000, terms: { customer: { amount: 3, type: 'fixed' } } }],
        },
      }),
    ).data;
    expect(unwrap(await client.cohorts.listPriceSets({ params, query: { variantKey: 'sdk' } })).data).toHaveLength(1);
    expect(unwrap(await client.cohorts.getPriceSet({ params: { ...params, priceSetId: set.id } })).data.id).toBe(
      set.id,
    );
    const updated = unwrap(
      await client.cohorts.updatePriceSet({
        params: { ...params, priceSetId: set.id },
        body: { automaticallyAddToCart: true },
      }),
    ).data;
    expect(updated.automaticallyAddToCart).toBe(true);

    const widget = unwrap(
      await client.cohorts.createWidget({ params, body: { variantKey: 'sdk', type: 'CART', config: { a: 1 } } }),
    ).data;
    expect(widget.customizationValues).toEqual({ a: 1 });
    expect(unwrap(await client.cohorts.listWidgets({ params, query: {} })).data).toHaveLength(1);
    const widgetParams = { ...params, widgetConfigId: widget.id };
    expect(unwrap(await client.cohorts.getWidget({ params: widgetParams })).data.type).toBe('CART');
    expect(unwrap(await client.cohorts.updateWidget({ params: widgetParams, body: { name: 'Cart' } })).data.name).toBe(
      'Cart',
    );

    const view = unwrap(
      await client.settings.updateContext({ params, query: { variantKey: 'sdk' }, body: { sendSmsUpdates: true } }),
    ).data;
    expect(view.resolvedSettings.sendSmsUpdates).toBe(true);
    expect(view.resolvedPricingRules.find((s) => s.type === 'SHIPPING')?.source).toBe('partner');
    expect(unwrap(await client.settings.getContext({ params, query: {} })).data.resolvedVariantKey).toBeNull();

    const quote = unwrap(await client.quote.create({ body: { orderTotal: 10.005, variantKey: 'sdk' } })).data;
    expect(quote).toMatchObject({ subtotal: 10.01, premium: 3, source: 'partner', partnerVariantKey: 'sdk' });

    const cohortHeaders = { 'x-svc-partner-app-id': clientId, 'x-svc-partner-variant': 'sdk' };
    const read = unwrap(
      await shopper.public.getInsurance({ query: { storeId: owner.store.id }, headers: cohortHeaders }),
    );
    expect(read).toMatchObject({ source: 'partner', partnerApplicationId: clientId, partnerVariantKey: 'sdk' });
    const byPath = unwrap(
      await shopper.public.getPartnerInsurance({
        params: { applicationId: clientId },
        query: { storeId: owner.store.id, key: 'sdk', subtotal: 20 },
      }),
    );
    expect(byPath.quote?.premium).toBe(3);
    const widgets = unwrap(
      await shopper.public.getPartnerWidgets({
        params: { applicationId: clientId },
        query: { storeId: owner.store.id, key: 'sdk', type: 'CART' },
      }),
    );
    expect(widgets.map((w) => w.name)).toEqual(['Cart']);
    expect(
      (
        await shopper.public.getPartnerWidgets({
          params: { applicationId: clientId },
          query: { storeId: owner.store.id, key: 'nobody' },
        })
      ).status,
    ).toBe(404);

    expect(unwrap(await client.cohorts.deleteWidget({ params: widgetParams })).data).toEqual({ ok: true });
    expect(unwrap(await client.cohorts.deletePriceSet({ params: { ...params, priceSetId: set.id } })).data).toEqual({
      ok: true,
    });
    expect(unwrap(await client.settings.deleteContext({ params })).data).toEqual({ ok: true });
    expect((await client.settings.getContext({ params, query: {} })).status).toBe(404);
  });
});
