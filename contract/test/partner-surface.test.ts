import { describe, expect, it } from 'vitest';
import { cohortRoutes } from '../src/routes/cohorts';
import { pricingRoutes } from '../src/routes/pricing';
import {
  publicRoutes,
  ZInsuranceHeaders,
  ZInsuranceQuery,
  ZPartnerInsuranceQuery,
  ZPartnerWidgetQuery,
} from '../src/routes/public';
import { quoteRoutes } from '../src/routes/quote';
import { settingsRoutes } from '../src/routes/settings';
import { widgetRoutes } from '../src/routes/widgets';
import { MAX_HEADER_LENGTH } from '../src/schemas/common';
import {
  ZCohortPriceSetCreateBody,
  ZCohortPriceSetUpdateBody,
  ZPriceRuleInput,
  ZPriceRulesInput,
  ZPricingRuleSet,
  ZPricingRuleSetUpdateBody,
} from '../src/schemas/pricing';
import { durationYears, ZInsuranceQuote, ZQuote, ZQuoteRequest } from '../src/schemas/quote';
import {
  hasStoreCreditFields,
  STORE_CREDIT_FIELDS,
  ZContextCreateBody,
  ZContextUpdateBody,
  ZMerchantSettings,
  ZPartnerContext,
} from '../src/schemas/settings';
import {
  ZCohortWidgetConfigCreateBody,
  ZCohortWidgetConfigUpdateBody,
  ZWidgetConfig,
  ZWidgetConfigUpdateBody,
} from '../src/schemas/widgets';
import { formatScopeRule } from '../src/scopes';

/** The issue paths of a failed parse, joined with dots. */
function issuePaths(result: { success: boolean; error?: { issues: { path: (string | number)[] }[] } }): string[] {
  expect(result.success).toBe(false);
  return result.error!.issues.map((i) => i.path.join('.'));
}

const rule = (min: number, max: number, extra: Record<string, unknown> = {}) => ({
  min,
  max,
  terms: { customer: { amount: 1, type: 'fixed' } },
  ...extra,
});

describe('variantKey pattern ^[a-zA-Z0-9_.:-]{1,64}$', () => {
  const create = (variantKey: unknown) =>
    ZCohortPriceSetCreateBody.safeParse({ variantKey, type: 'SHIPPING', rules: [] });

  it('accepts the allowed characters up to 64', () => {
    expect(create('A_b.c:d-9').success).toBe(true);
    expect(create('x'.repeat(64)).success).toBe(true);
  });

  it.each(['', 'x'.repeat(65), 'has space', 'slash/key', 'ümlaut', 'a+b'])('rejects %j', (key) => {
    expect(create(key).success).toBe(false);
  });

  it('validates the cohort list filter and the path-read key', () => {
    expect(ZPartnerInsuranceQuery.safeParse({ storeId: 's1', key: 'bad key' }).success).toBe(false);
    expect(ZPartnerInsuranceQuery.safeParse({ storeId: 's1', key: 'arm-b' }).success).toBe(true);
    expect(ZPartnerInsuranceQuery.safeParse({ storeId: 's1' }).success).toBe(false);
    expect(ZPartnerWidgetQuery.safeParse({ store_url: 'shop.example', key: 'k', type: 'CART' }).success).toBe(true);
    expect(ZPartnerWidgetQuery.safeParse({ store_url: 'shop.example', key: 'k', type: 'BANNER' }).success).toBe(false);
  });
});

describe('partner context bodies (D27)', () => {
  it('create takes a name of 1-128 characters and nothing else', () => {
    expect(ZContextCreateBody.safeParse({ name: 'a' }).success).toBe(true);
    expect(ZContextCreateBody.safeParse({ name: 'a'.repeat(128) }).success).toBe(true);
    expect(ZContextCreateBody.safeParse({ name: '' }).success).toBe(false);
    expect(ZContextCreateBody.safeParse({ name: 'a'.repeat(129) }).success).toBe(false);
    expect(ZContextCreateBody.safeParse({}).success).toBe(false);
    expect(ZContextCreateBody.safeParse({ name: 'a', variantKey: 'v1' }).success).toBe(false);
  });

  it('PATCH is sparse: an empty body and single fields parse', () => {
    expect(ZContextUpdateBody.safeParse({}).success).toBe(true);
    expect(ZContextUpdateBody.safeParse({ sendSmsUpdates: true }).success).toBe(true);
    expect(ZContextUpdateBody.safeParse({ name: 'x'.repeat(129) }).success).toBe(false);
  });

  it.each([
    'name',
    'enableCancelAfterPurchase',
    'cancelAfterPurchaseDurationSeconds',
    'sendConfirmationEmail',
    'sendSmsUpdates',
    'offerStoreCreditOnServicePurchase',
    'storeCreditType',
    'storeCreditBonus',
    'storeCreditBonusType',
    'storeCreditMaxPercentage',
  ])('PATCH rejects null for %s', (field) => {
    expect(issuePaths(ZContextUpdateBody.safeParse({ [field]: null }))).toContain(field);
  });

  it('PATCH enforces the settings limits and enums', () => {
    expect(ZContextUpdateBody.safeParse({ storeCreditMaxPercentage: 100 }).success).toBe(true);
    expect(ZContextUpdateBody.safeParse({ storeCreditMaxPercentage: 0 }).success).toBe(true);
    expect(ZContextUpdateBody.safeParse({ storeCreditMaxPercentage: 100.5 }).success).toBe(false);
    expect(ZContextUpdateBody.safeParse({ storeCreditMaxPercentage: -1 }).success).toBe(false);
    expect(ZContextUpdateBody.safeParse({ storeCreditBonus: -0.01 }).success).toBe(false);
    expect(ZContextUpdateBody.safeParse({ cancelAfterPurchaseDurationSeconds: -1 }).success).toBe(false);
    expect(ZContextUpdateBody.safeParse({ cancelAfterPurchaseDurationSeconds: 0 }).success).toBe(true);
    expect(ZContextUpdateBody.safeParse({ storeCreditType: 'GIFT_CARD' }).success).toBe(true);
    expect(ZContextUpdateBody.safeParse({ storeCreditType: 'DISCOUNT_CODE' }).success).toBe(true);
    expect(ZContextUpdateBody.safeParse({ storeCreditType: 'CASH' }).success).toBe(false);
    expect(ZContextUpdateBody.safeParse({ storeCreditBonusType: 'flat' }).success).toBe(true);
    expect(ZContextUpdateBody.safeParse({ storeCreditBonusType: 'fixed' }).success).toBe(false);
  });

  it('PATCH is strict: unknown and read-only fields are rejected', () => {
    expect(ZContextUpdateBody.safeParse({ updatedAt: '2026-01-01T00:00:00.000Z' }).success).toBe(false);
    expect(ZContextUpdateBody.safeParse({ variantKey: 'a' }).success).toBe(false);
    expect(ZContextUpdateBody.safeParse({ updatedByApplicationId: 'svc_app_x' }).success).toBe(false);
  });

  it('names exactly the five store-credit fields', () => {
    expect([...STORE_CREDIT_FIELDS].sort()).toEqual(
      [
        'offerStoreCreditOnServicePurchase',
        'storeCreditBonus',
        'storeCreditBonusType',
        'storeCreditMaxPercentage',
        'storeCreditType',
      ].sort(),
    );
    expect(hasStoreCreditFields({ name: 'x', sendSmsUpdates: true })).toBe(false);
    expect(hasStoreCreditFields({ storeCreditBonus: 0 })).toBe(true);
  });

  it('context read has updatedAt null until the first update', () => {
    const ctx = {
      id: 'c1',
      applicationId: 'svc_app_1',
      name: 'n',
      createdAt: '2026-01-31T12:00:00.000Z',
      updatedAt: null,
    };
    expect(ZPartnerContext.safeParse(ctx).success).toBe(true);
    expect(ZPartnerContext.safeParse({ ...ctx, updatedAt: undefined }).success).toBe(false);
  });

  it('merchant settings read is strict and complete', () => {
    const s = {
      enableCancelAfterPurchase: true,
      cancelAfterPurchaseDurationSeconds: 3600,
      sendConfirmationEmail: true,
      sendSmsUpdates: false,
      offerStoreCreditOnServicePurchase: true,
      storeCreditType: 'GIFT_CARD',
      storeCreditBonus: 5,
      storeCreditBonusType: 'percentage',
      storeCreditMaxPercentage: 20,
      photosRequiredFor: ['DAMAGED'],
      updatedByApplicationId: null,
      updatedAt: '2026-01-31T12:00:00.000Z',
    };
    expect(ZMerchantSettings.safeParse(s).success).toBe(true);
    // D56: a set of issue types.
    expect(ZMerchantSettings.safeParse({ ...s, photosRequiredFor: ['DAMAGED', 'DAMAGED'] }).success).toBe(false);
    expect(ZMerchantSettings.safeParse({ ...s, photosRequiredFor: ['BROKEN'] }).success).toBe(false);
    expect(ZMerchantSettings.safeParse({ ...s, extra: 1 }).success).toBe(false);
    const { sendSmsUpdates: _omit, ...missing } = s;
    expect(ZMerchantSettings.safeParse(missing).success).toBe(false);
  });
});

describe('region block lists', () => {
  const put = (list: unknown) => ZPricingRuleSetUpdateBody.safeParse({ autoAddCountryBlockList: list });

  it('upper-cases 2-letter codes', () => {
    const r = ZPricingRuleSetUpdateBody.safeParse({
      autoAddCountryBlockList: ['us', 'Ca'],
      autoAddStateBlockList: ['ny'],
    });
    expect(r.success).toBe(true);
    expect(r.data).toEqual({ autoAddCountryBlockList: ['US', 'CA'], autoAddStateBlockList: ['NY'] });
  });

  it('accepts an empty list (clears) and at most 100 entries', () => {
    expect(put([]).success).toBe(true);
    expect(put(Array(100).fill('US')).success).toBe(true);
    expect(put(Array(101).fill('US')).success).toBe(false);
  });

  it.each([['USA'], ['U'], ['U1'], ['US-NY'], [''], [12]])('rejects %j', (code) => {
    expect(put([code]).success).toBe(false);
  });

  it('read shape requires upper case', () => {
    expect(ZPricingRuleSet.shape.autoAddCountryBlockList.safeParse(['us']).success).toBe(false);
    expect(ZPricingRuleSet.shape.autoAddCountryBlockList.safeParse(['US']).success).toBe(true);
  });
});

describe('price rules (D30)', () => {
  it('turns flat into fixed on write', () => {
    const r = ZPriceRuleInput.safeParse({
      min: 0,
      max: 10,
      terms: { customer: { amount: 2, type: 'flat' }, brand: { amount: 5, type: 'percentage' } },
    });
    expect(r.success).toBe(true);
    expect(r.data!.terms.customer!.type).toBe('fixed');
    expect(r.data!.terms.brand!.type).toBe('percentage');
  });

  it('rejects unknown amount types and operators', () => {
    expect(ZPriceRuleInput.safeParse(rule(0, 1, { terms: { customer: { amount: 1, type: 'FLAT' } } })).success).toBe(
      false,
    );
    expect(ZPriceRuleInput.safeParse(rule(0, 1, { terms: { operator: 'XOR' } })).success).toBe(false);
    expect(ZPriceRuleInput.safeParse(rule(0, 1, { terms: { operator: 'OR', paidBy: 'customer' } })).success).toBe(true);
  });

  it('percentages are 0-100, amounts >= 0', () => {
    const pct = (amount: number) =>
      ZPriceRuleInput.safeParse(rule(0, 1, { terms: { brand: { amount, type: 'percentage' } } }));
    expect(pct(0).success).toBe(true);
    expect(pct(100).success).toBe(true);
    expect(issuePaths(pct(100.01))).toContain('terms.brand.amount');
    expect(pct(-1).success).toBe(false);
    const fixed = (amount: number) =>
      ZPriceRuleInput.safeParse(rule(0, 1, { terms: { customer: { amount, type: 'fixed' } } }));
    expect(fixed(250).success).toBe(true);
    expect(fixed(-0.01).success).toBe(false);
  });

  it('min < max, bounds >= 0', () => {
    expect(issuePaths(ZPriceRuleInput.safeParse(rule(10, 10)))).toContain('max');
    expect(ZPriceRuleInput.safeParse(rule(10, 5)).success).toBe(false);
    expect(ZPriceRuleInput.safeParse(rule(-1, 5)).success).toBe(false);
  });

  it('adjacent half-open ranges are fine, overlapping ones are not', () => {
    expect(ZPriceRulesInput.safeParse([rule(0, 50), rule(50, 100), rule(100, 1000)]).success).toBe(true);
    expect(ZPriceRulesInput.safeParse([rule(100, 1000), rule(0, 50)]).success).toBe(true);
    const overlap = ZPriceRulesInput.safeParse([rule(50, 150), rule(0, 100)]);
    expect(issuePaths(overlap)).toEqual(['0.min']);
    const contained = ZPriceRulesInput.safeParse([rule(0, 1000), rule(10, 20)]);
    expect(issuePaths(contained)).toEqual(['1.min']);
  });

  it('reports the overlap under the body path', () => {
    const r = ZPricingRuleSetUpdateBody.safeParse({ rules: [rule(0, 100), rule(99, 200)] });
    expect(issuePaths(r)).toEqual(['rules.1.min']);
  });

  it('rejects a repeated rule id', () => {
    expect(issuePaths(ZPriceRulesInput.safeParse([rule(0, 1, { id: 'r1' }), rule(1, 2, { id: 'r1' })]))).toEqual([
      '1.id',
    ]);
  });

  it('rule and terms are strict', () => {
    expect(ZPriceRuleInput.safeParse(rule(0, 1, { minValue: 0 })).success).toBe(false);
    expect(
      ZPriceRuleInput.safeParse(rule(0, 1, { terms: { customer: { amount: 1, type: 'fixed', currency: 'USD' } } }))
        .success,
    ).toBe(false);
  });

  it('caps the rules array', () => {
    const many = Array.from({ length: 201 }, (_, i) => rule(i, i + 1));
    expect(ZPriceRulesInput.safeParse(many.slice(0, 200)).success).toBe(true);
    expect(ZPriceRulesInput.safeParse(many).success).toBe(false);
  });
});

describe('cohort price sets (D28)', () => {
  it('create needs variantKey and type, defaults the rest', () => {
    const r = ZCohortPriceSetCreateBody.safeParse({ variantKey: 'a', type: 'EXTENDED_WARRANTY', rules: [rule(0, 10)] });
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({
      automaticallyAddToCart: false,
      autoAddStateBlockList: [],
      autoAddCountryBlockList: [],
    });
    expect(ZCohortPriceSetCreateBody.safeParse({ type: 'SHIPPING', rules: [] }).success).toBe(false);
    expect(ZCohortPriceSetCreateBody.safeParse({ variantKey: 'a', rules: [] }).success).toBe(false);
    expect(ZCohortPriceSetCreateBody.safeParse({ variantKey: 'a', type: 'WARRANTY', rules: [] }).success).toBe(false);
  });

  it('update is sparse, strict and refuses null', () => {
    expect(ZCohortPriceSetUpdateBody.safeParse({}).success).toBe(true);
    expect(ZCohortPriceSetUpdateBody.safeParse({ type: 'SHIPPING', variantKey: 'a' }).success).toBe(true);
    expect(ZCohortPriceSetUpdateBody.safeParse({ rules: null }).success).toBe(false);
    expect(ZCohortPriceSetUpdateBody.safeParse({ id: 'x' }).success).toBe(false);
  });
});

describe('widget configs', () => {
  it('rejects customizationValues on every write', () => {
    const cv = { customizationValues: { color: 'red' } };
    expect(ZWidgetConfigUpdateBody.safeParse({ config: {}, ...cv }).success).toBe(false);
    expect(ZCohortWidgetConfigUpdateBody.safeParse(cv).success).toBe(false);
    expect(ZCohortWidgetConfigCreateBody.safeParse({ variantKey: 'a', type: 'CART', ...cv }).success).toBe(false);
  });

  it('accepts a free-form config object but not a non-object', () => {
    expect(ZWidgetConfigUpdateBody.safeParse({ config: { nested: { a: [1, 'b'] } }, status: 'INACTIVE' }).success).toBe(
      true,
    );
    expect(ZWidgetConfigUpdateBody.safeParse({ config: ['a'] }).success).toBe(false);
    expect(ZWidgetConfigUpdateBody.safeParse({ config: 'x' }).success).toBe(false);
    expect(ZWidgetConfigUpdateBody.safeParse({ type: 'CART' }).success).toBe(false);
  });

  it('cohort create needs variantKey and a known type', () => {
    const r = ZCohortWidgetConfigCreateBody.safeParse({ variantKey: 'a', type: 'INFO_MODAL' });
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({ status: 'ACTIVE', config: {} });
    expect(ZCohortWidgetConfigCreateBody.safeParse({ variantKey: 'a', type: 'BANNER' }).success).toBe(false);
    expect(ZCohortWidgetConfigCreateBody.safeParse({ type: 'CART' }).success).toBe(false);
    expect(ZCohortWidgetConfigCreateBody.safeParse({ variantKey: 'a', type: 'CART', name: '' }).success).toBe(false);
  });

  it('read carries the legacy mirror', () => {
    const w = {
      id: 'w1',
      type: 'CHECKOUT',
      status: 'ACTIVE',
      variant: null,
      name: 'Checkout',
      config: { a: 1 },
      customizationValues: { a: 1 },
      updatedByApplicationId: null,
      updatedAt: '2026-01-31T12:00:00.000Z',
    };
    expect(ZWidgetConfig.safeParse(w).success).toBe(true);
    const { customizationValues: _cv, ...without } = w;
    expect(ZWidgetConfig.safeParse(without).success).toBe(false);
  });
});

describe('quote body (D31)', () => {
  const item = { price: 10, quantity: 2, isShippable: true };

  it('needs orderTotal or lineItems', () => {
    expect(issuePaths(ZQuoteRequest.safeParse({}))).toContain('orderTotal');
    expect(ZQuoteRequest.safeParse({ orderTotal: 120 }).success).toBe(true);
    expect(ZQuoteRequest.safeParse({ lineItems: [item] }).success).toBe(true);
  });

  it('defaults policyType to SHIPPING', () => {
    expect(ZQuoteRequest.parse({ orderTotal: 1 }).policyType).toBe('SHIPPING');
  });

  it('accepts at most 500 line items', () => {
    expect(ZQuoteRequest.safeParse({ lineItems: Array(500).fill(item) }).success).toBe(true);
    expect(issuePaths(ZQuoteRequest.safeParse({ lineItems: Array(501).fill(item) }))).toContain('lineItems');
  });

  it('duration: required for EXTENDED_WARRANTY, rejected for SHIPPING, P1Y..P10Y', () => {
    expect(issuePaths(ZQuoteRequest.safeParse({ orderTotal: 1, policyType: 'EXTENDED_WARRANTY' }))).toContain(
      'duration',
    );
    expect(issuePaths(ZQuoteRequest.safeParse({ orderTotal: 1, duration: 'P3Y' }))).toContain('duration');
    expect(issuePaths(ZQuoteRequest.safeParse({ orderTotal: 1, policyType: 'SHIPPING', duration: 'P3Y' }))).toContain(
      'duration',
    );
    for (const d of ['P1Y', 'P3Y', 'P10Y']) {
      expect(ZQuoteRequest.safeParse({ orderTotal: 1, policyType: 'EXTENDED_WARRANTY', duration: d }).success).toBe(
        true,
      );
    }
    for (const d of ['P0Y', 'P11Y', 'P36M', 'P1Y6M', '3 years', 'p3y']) {
      expect(ZQuoteRequest.safeParse({ orderTotal: 1, policyType: 'EXTENDED_WARRANTY', duration: d }).success, d).toBe(
        false,
      );
    }
    expect(durationYears('P10Y')).toBe(10);
  });

  it('validates amounts, currency and variantKey; is strict', () => {
    expect(ZQuoteRequest.safeParse({ orderTotal: -1 }).success).toBe(false);
    expect(ZQuoteRequest.safeParse({ lineItems: [{ ...item, price: -1 }] }).success).toBe(false);
    expect(ZQuoteRequest.safeParse({ lineItems: [{ ...item, quantity: 1.5 }] }).success).toBe(false);
    expect(ZQuoteRequest.safeParse({ lineItems: [{ ...item, sku: 'x' }] }).success).toBe(false);
    expect(ZQuoteRequest.safeParse({ orderTotal: 1, currency: 'usd' }).success).toBe(false);
    expect(ZQuoteRequest.safeParse({ orderTotal: 1, currency: 'EUR', variantKey: 'arm_b' }).success).toBe(true);
    expect(ZQuoteRequest.safeParse({ orderTotal: 1, variantKey: 'arm b' }).success).toBe(false);
    expect(ZQuoteRequest.safeParse({ orderTotal: 1, policy: 'SHIPPING' }).success).toBe(false);
    expect(ZQuoteRequest.safeParse({ orderTotal: 1, policyType: 'WARRANTY' }).success).toBe(false);
  });

  it("takes a line item's productType from the product's enum (D21, D47)", () => {
    for (const productType of ['FULL', 'SIMPLE', 'GROUPED']) {
      expect(ZQuoteRequest.safeParse({ lineItems: [{ ...item, productType }] }).success, productType).toBe(true);
    }
    expect(issuePaths(ZQuoteRequest.safeParse({ lineItems: [{ ...item, productType: 'BOOK' }] }))).toContain(
      'lineItems.0.productType',
    );
  });
});

describe('public reads (D29)', () => {
  it('names the store by exactly one of store_url and storeId', () => {
    expect(ZInsuranceQuery.safeParse({ store_url: 'shop.example.com' }).success).toBe(true);
    expect(ZInsuranceQuery.safeParse({ storeId: 's1', subtotal: '12.50' }).data).toEqual({
      storeId: 's1',
      subtotal: 12.5,
    });
    expect(ZInsuranceQuery.safeParse({}).success).toBe(false);
    expect(ZInsuranceQuery.safeParse({ storeId: 's1', store_url: 'shop.example.com' }).success).toBe(false);
    expect(ZInsuranceQuery.safeParse({ storeId: 's1', subtotal: '-1' }).success).toBe(false);
  });

  it('never fails on malformed cohort headers up to their bound (D47: one past it is refused)', () => {
    for (const v of ['', 'bad value!', 'x'.repeat(MAX_HEADER_LENGTH), '../../etc', 'ü']) {
      expect(ZInsuranceHeaders.safeParse({ 'x-svc-partner-app-id': v, 'x-svc-partner-variant': v }).success).toBe(true);
    }
    expect(ZInsuranceHeaders.safeParse({}).success).toBe(true);
    const over = 'x'.repeat(MAX_HEADER_LENGTH + 1);
    expect(ZInsuranceHeaders.safeParse({ 'x-svc-partner-variant': over }).success).toBe(false);
  });

  it('answer: D29 rule shape, optional partner fields and quote', () => {
    const base = {
      id: 'rs1',
      automaticallyAddToCart: true,
      autoAddStateBlockList: [],
      autoAddCountryBlockList: ['US'],
      rules: [
        {
          id: 'r1',
          min: 0,
          max: 100,
          terms: { paidBy: null, operator: 'AND', customer: { amount: 1, type: 'fixed' }, brand: null },
        },
      ],
      source: 'merchant',
    };
    expect(ZInsuranceQuote.safeParse(base).success).toBe(true);
    expect(
      ZInsuranceQuote.safeParse({
        ...base,
        source: 'partner',
        partnerApplicationId: 'svc_app_1',
        partnerVariantKey: 'b',
      }).success,
    ).toBe(true);
    expect(
      ZInsuranceQuote.safeParse({ ...base, rules: [{ ...base.rules[0], minValue: 0, maxValue: 100 }] }).success,
    ).toBe(false);
    expect(ZInsuranceQuote.safeParse({ ...base, source: 'cohort' }).success).toBe(false);
    const quote = {
      policyType: 'SHIPPING',
      currency: 'USD',
      subtotal: 50,
      eligible: true,
      premium: 1,
      customerAmount: 1,
      brandAmount: 0,
      paidBy: null,
      operator: 'AND',
      ruleSetId: 'rs1',
      ruleId: 'r1',
      duration: null,
      source: 'merchant',
      partnerVariantKey: null,
    };
    expect(ZQuote.safeParse(quote).success).toBe(true);
    expect(ZInsuranceQuote.safeParse({ ...base, quote }).success).toBe(true);
  });
});

describe('route metadata', () => {
  const routers = { settingsRoutes, cohortRoutes, pricingRoutes, widgetRoutes, quoteRoutes, publicRoutes };

  it('renders the routes.tsv scope notation', () => {
    const f = (r: { metadata?: unknown }) =>
      formatScopeRule((r.metadata as { scopes: Parameters<typeof formatScopeRule>[0] }).scopes);
    expect(f(settingsRoutes.updateContext)).toBe(
      'partner-context:update (+store-credit:update for store-credit fields)',
    );
    expect(f(cohortRoutes.createPriceSet)).toBe('partner-context:update + pricing:<type>:update');
    expect(f(cohortRoutes.listWidgets)).toBe('widget:<type>:read (list filtered by type)');
    expect(f(cohortRoutes.getWidget)).toBe('widget:<type>:read');
    expect(f(pricingRoutes.update)).toBe('pricing:<type>:update (404 when missing)');
    expect(f(publicRoutes.getInsurance)).toBe('-');
  });

  it('every route is strict about status codes and declares its D2 errors', () => {
    for (const [name, router] of Object.entries(routers)) {
      for (const [key, route] of Object.entries(router)) {
        const r = route as {
          strictStatusCodes?: boolean;
          responses: Record<number, unknown>;
          metadata: { auth: string };
        };
        expect(r.strictStatusCodes, `${name}.${key}`).toBe(true);
        const want = r.metadata.auth === 'token' ? [400, 401, 403, 404, 429] : [400, 404, 429];
        for (const s of want) expect(Object.keys(r.responses), `${name}.${key} ${s}`).toContain(String(s));
      }
    }
  });

  it('creates declare 409 (duplicates, D33)', () => {
    for (const r of [
      settingsRoutes.createContext,
      cohortRoutes.createPriceSet,
      cohortRoutes.createWidget,
      quoteRoutes.create,
    ]) {
      expect(Object.keys(r.responses)).toContain('409');
    }
  });
});
