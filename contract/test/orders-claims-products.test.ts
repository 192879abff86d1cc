import { describe, expect, it } from 'vitest';
import type { RouteMeta } from '../src/meta';
import { claimRoutes } from '../src/routes/claims';
import { orderRoutes } from '../src/routes/orders';
import { productRoutes } from '../src/routes/products';
import {
  CLAIM_STATES,
  canTransition,
  ZClaim,
  ZClaimApprove,
  ZClaimDeny,
  ZClaimFile,
  ZClaimListNode,
  ZClaimListQuery,
  ZClaimMessageWrite,
  ZClaimTransition,
  ZOfflineClaimFile,
  ZOfflineClaimFiled,
} from '../src/schemas/claims';
import { CURRENCY_MINOR_UNITS, isCurrencyCode, minorUnits } from '../src/schemas/currencies';
import { FULFILLMENT_STATUSES, ZFulfillment, ZFulfillmentWrite, ZOrder, ZOrderWrite } from '../src/schemas/orders';
import { ZBundleRemove, ZProduct, ZProductChildWrite, ZProductWrite } from '../src/schemas/products';
import { formatScopeRule } from '../src/scopes';

const T = '2026-01-31T12:00:00.000Z';
const id255 = 'x'.repeat(255);
const id256 = 'x'.repeat(256);

function issuePaths(result: { success: boolean; error?: { issues: { path: (string | number)[] }[] } }) {
  return (result.error?.issues ?? []).map((i) => i.path.join('.'));
}

// ---------------------------------------------------------------------------------------
describe('currencies (D6, spec)', () => {
  it('knows the minor units of current codes', () => {
    expect(minorUnits('USD')).toBe(2);
    expect(minorUnits('EUR')).toBe(2);
    expect(minorUnits('JPY')).toBe(0);
    expect(minorUnits('KRW')).toBe(0);
    expect(minorUnits('KWD')).toBe(3);
    expect(minorUnits('BHD')).toBe(3);
    expect(minorUnits('TND')).toBe(3);
    expect(minorUnits('CLF')).toBe(4);
    expect(minorUnits('UYW')).toBe(4);
  });
  it('accepts withdrawn codes with their historical minor units', () => {
    for (const code of [
      'DEM',
      'FRF',
      'ITL',
      'ESP',
      'NLG',
      'BEF',
      'ATS',
      'FIM',
      'IEP',
      'PTE',
      'GRD',
      'LUF',
      'ADP',
      'AFA',
    ]) {
      expect(isCurrencyCode(code), code).toBe(true);
    }
    expect(minorUnits('ITL')).toBe(0);
    expect(minorUnits('ESP')).toBe(0);
    expect(minorUnits('DEM')).toBe(2);
  });
  it('falls back to 2 when absent or unknown (D6)', () => {
    expect(minorUnits(null)).toBe(2);
    expect(minorUnits(undefined)).toBe(2);
    expect(minorUnits('ABC')).toBe(2);
    expect(minorUnits('usd')).toBe(2);
  });
  it('rejects non-codes and is case-sensitive', () => {
    expect(isCurrencyCode('ABC')).toBe(false);
    expect(isCurrencyCode('usd')).toBe(false);
    expect(isCurrencyCode('US')).toBe(false);
    expect(isCurrencyCode('toString')).toBe(false);
    expect(isCurrencyCode('__proto__')).toBe(false);
  });
  it('covers every currency the runtime knows', () => {
    const known = Intl.supportedValuesOf('currency');
    expect(known.filter((c) => !isCurrencyCode(c))).toEqual([]);
    for (const [code, units] of Object.entries(CURRENCY_MINOR_UNITS)) {
      expect(code).toMatch(/^[A-Z]{3}$/);
      expect([0, 2, 3, 4]).toContain(units);
    }
  });
});

// ---------------------------------------------------------------------------------------
describe('ZOrderWrite (D18)', () => {
  const minimal = {
    sourceOrderNumber: '#1001',
    currency: 'USD',
    platformId: 'shopify',
    total: 100,
    sourceCreatedAt: '2026-01-31T12:00:00Z',
  };

  it('accepts the five required fields alone', () => {
    expect(ZOrderWrite.safeParse(minimal).success).toBe(true);
  });

  it.each(['sourceOrderNumber', 'currency', 'platformId', 'total', 'sourceCreatedAt'])('requires %s', (field) => {
    const body: Record<string, unknown> = { ...minimal };
    delete body[field];
    const r = ZOrderWrite.safeParse(body);
    expect(r.success).toBe(false);
    expect(issuePaths(r)).toContain(field);
  });

  it('accepts a full order with line items and nulls for optional fields', () => {
    const r = ZOrderWrite.safeParse({
      ...minimal,
      policyCancelledAt: null,
      originalSourceOrderId: 'old-1',
      sourceUpdatedAt: '2026-01-31T13:00:00+02:00',
      sourceCancelledAt: null,
      premiumPaid: 2.5,
      discountTotal: 0,
      shippingCost: 5,
      tax: 7.25,
      subtotal: 90,
      customerEmail: 'a@example.com',
      customerName: 'Ann',
      customerPhone: '+1 555 123 4567',
      shippingCostTax: 0.5,
      lineItems: [
        {
          sourceItemId: 'li-1',
          sourceProductId: 'p-1',
          sourceVariantId: 'v-1',
          name: 'Mug',
          sku: 'MUG',
          quantity: 2,
          price: 45,
          isShippable: true,
        },
      ],
    });
    expect(r.success).toBe(true);
  });

  it('rejects unknown properties (D3)', () => {
    expect(ZOrderWrite.safeParse({ ...minimal, foo: 1 }).success).toBe(false);
    expect(
      ZOrderWrite.safeParse({ ...minimal, lineItems: [{ sourceItemId: 'a', quantity: 1, bar: true }] }).success,
    ).toBe(false);
  });

  it('rejects negative amounts', () => {
    for (const field of [
      'total',
      'premiumPaid',
      'discountTotal',
      'shippingCost',
      'tax',
      'subtotal',
      'shippingCostTax',
    ]) {
      const r = ZOrderWrite.safeParse({ ...minimal, [field]: -0.01 });
      expect(r.success, field).toBe(false);
    }
    expect(
      ZOrderWrite.safeParse({ ...minimal, lineItems: [{ sourceItemId: 'a', quantity: 1, price: -1 }] }).success,
    ).toBe(false);
    expect(ZOrderWrite.safeParse({ ...minimal, total: 0 }).success).toBe(true);
    expect(ZOrderWrite.safeParse({ ...minimal, total: Number.POSITIVE_INFINITY }).success).toBe(false);
  });

  it('accepts current and withdrawn currencies, rejects unknown ones', () => {
    expect(ZOrderWrite.safeParse({ ...minimal, currency: 'DEM' }).success).toBe(true);
    expect(ZOrderWrite.safeParse({ ...minimal, currency: 'KWD' }).success).toBe(true);
    expect(ZOrderWrite.safeParse({ ...minimal, currency: 'ABC' }).success).toBe(false);
    expect(ZOrderWrite.safeParse({ ...minimal, currency: 'usd' }).success).toBe(false);
    expect(ZOrderWrite.safeParse({ ...minimal, currency: 'USDX' }).success).toBe(false);
  });

  it('checks platformId, timestamps, email and phone', () => {
    expect(ZOrderWrite.safeParse({ ...minimal, platformId: 'etsy' }).success).toBe(false);
    expect(ZOrderWrite.safeParse({ ...minimal, sourceCreatedAt: 'yesterday' }).success).toBe(false);
    expect(ZOrderWrite.safeParse({ ...minimal, customerEmail: 'not-an-email' }).success).toBe(false);
    expect(ZOrderWrite.safeParse({ ...minimal, customerPhone: 'call me' }).success).toBe(false);
  });

  it('bounds ids and numbers at 255 characters', () => {
    expect(ZOrderWrite.safeParse({ ...minimal, originalSourceOrderId: id255 }).success).toBe(true);
    expect(ZOrderWrite.safeParse({ ...minimal, originalSourceOrderId: id256 }).success).toBe(false);
    expect(ZOrderWrite.safeParse({ ...minimal, sourceOrderNumber: '' }).success).toBe(false);
    expect(ZOrderWrite.safeParse({ ...minimal, sourceOrderNumber: id256 }).success).toBe(false);
  });

  it('allows at most 500 line items, with distinct sourceItemIds and whole quantities', () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ sourceItemId: `li-${i}`, quantity: 1 }));
    expect(ZOrderWrite.safeParse({ ...minimal, lineItems: items(500) }).success).toBe(true);
    expect(ZOrderWrite.safeParse({ ...minimal, lineItems: items(501) }).success).toBe(false);
    const dup = ZOrderWrite.safeParse({
      ...minimal,
      lineItems: [
        { sourceItemId: 'a', quantity: 1 },
        { sourceItemId: 'a', quantity: 2 },
      ],
    });
    expect(dup.success).toBe(false);
    expect(issuePaths(dup)).toContain('lineItems.1.sourceItemId');
    expect(ZOrderWrite.safeParse({ ...minimal, lineItems: [{ sourceItemId: 'a', quantity: 1.5 }] }).success).toBe(
      false,
    );
    expect(ZOrderWrite.safeParse({ ...minimal, lineItems: [{ quantity: 1 }] }).success).toBe(false);
  });
});

describe('ZOrder read (D18, D19)', () => {
  const order = {
    id: 'ord_1',
    storeId: 'st_1',
    sourceOrderId: 'so-1',
    sourceOrderNumber: '#1',
    currency: 'USD',
    policyCancelledAt: null,
    originalSourceOrderId: null,
    sourceCreatedAt: T,
    sourceUpdatedAt: null,
    sourceCancelledAt: null,
    platformId: 'api',
    premiumPaid: 1.5,
    total: 10,
    discountTotal: null,
    shippingCost: null,
    tax: null,
    subtotal: null,
    customerEmail: null,
    customerName: null,
    customerPhone: null,
    shippingCostTax: null,
    lineItems: [
      {
        sourceItemId: 'a',
        sourceProductId: null,
        sourceVariantId: null,
        name: null,
        sku: null,
        quantity: 1,
        price: 10,
        isShippable: null,
        claimableQuantity: 1,
      },
    ],
    protection: { status: 'ACTIVE', policyId: 'pol_1' },
    offer: null,
    createdAt: T,
    updatedAt: T,
  };

  it('accepts a complete read', () => {
    expect(ZOrder.safeParse(order).success).toBe(true);
  });
  it('carries every key (nullable, not optional)', () => {
    const { customerEmail: _omit, ...rest } = order;
    expect(ZOrder.safeParse(rest).success).toBe(false);
    const { lineItems: _li, ...noItems } = order;
    expect(ZOrder.safeParse(noItems).success).toBe(false);
    expect(ZOrder.safeParse({ ...order, lineItems: null }).success).toBe(true);
  });
  it('limits protection status to ACTIVE, REMOVED, NONE', () => {
    for (const status of ['ACTIVE', 'REMOVED', 'NONE']) {
      expect(ZOrder.safeParse({ ...order, protection: { status, policyId: null } }).success).toBe(true);
    }
    expect(ZOrder.safeParse({ ...order, protection: { status: 'PENDING', policyId: null } }).success).toBe(false);
    expect(ZOrder.safeParse({ ...order, protection: { status: 'NONE' } }).success).toBe(false);
  });
  it('requires D6 timestamps (UTC, milliseconds) and rejects leaked properties', () => {
    expect(ZOrder.safeParse({ ...order, createdAt: '2026-01-31T12:00:00Z' }).success).toBe(false);
    expect(ZOrder.safeParse({ ...order, createdAt: '2026-01-31T12:00:00.000+01:00' }).success).toBe(false);
    expect(ZOrder.safeParse({ ...order, deletedAt: null }).success).toBe(false);
    expect(ZOrder.safeParse({ ...order, lineItems: [{ ...order.lineItems[0], secret: 1 }] }).success).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------
describe('fulfillments (D20)', () => {
  it('has the 18 statuses of the spec', () => {
    expect(FULFILLMENT_STATUSES).toHaveLength(18);
    expect(new Set(FULFILLMENT_STATUSES).size).toBe(18);
    expect(ZFulfillmentWrite.safeParse({ fulfillmentStatus: 'READY_FOR_PICKUP' }).success).toBe(true);
    expect(ZFulfillmentWrite.safeParse({ fulfillmentStatus: 'LOST' }).success).toBe(false);
    expect(ZFulfillmentWrite.safeParse({ fulfillmentStatus: 'delivered' }).success).toBe(false);
  });

  it('accepts the spec fields but sourceFulfillmentId', () => {
    const body = {
      sourceItemIds: [{ sourceItemId: 'li-1', quantity: 2 }],
      fulfillmentStatus: 'IN_TRANSIT',
      trackingCompany: 'UPS',
      trackingNumber: ['1Z999'],
      trackingUrl: ['https://ups.example/track/1Z999'],
      createdAt: T,
      updatedAt: T,
    };
    expect(ZFulfillmentWrite.safeParse(body).success).toBe(true);
    expect(ZFulfillmentWrite.safeParse({ ...body, sourceFulfillmentId: 'f-1' }).success).toBe(false);
    expect(ZFulfillmentWrite.safeParse({ ...body, cancelledAt: T }).success).toBe(false);
  });

  it('requires a status and checks items, URLs and array limits', () => {
    expect(ZFulfillmentWrite.safeParse({}).success).toBe(false);
    const base = { fulfillmentStatus: 'FULFILLED' };
    expect(ZFulfillmentWrite.safeParse({ ...base, trackingUrl: ['not a url'] }).success).toBe(false);
    expect(ZFulfillmentWrite.safeParse({ ...base, sourceItemIds: [{ sourceItemId: 'a', quantity: 0 }] }).success).toBe(
      false,
    );
    expect(ZFulfillmentWrite.safeParse({ ...base, sourceItemIds: [{ sourceItemId: 'a' }] }).success).toBe(false);
    expect(ZFulfillmentWrite.safeParse({ ...base, trackingNumber: Array(101).fill('n') }).success).toBe(false);
    expect(ZFulfillmentWrite.safeParse({ ...base, trackingNumber: Array(100).fill('n') }).success).toBe(true);
  });

  it('reads with cancelledAt', () => {
    const f = {
      sourceFulfillmentId: 'f-1',
      sourceItemIds: [],
      fulfillmentStatus: 'DELIVERED',
      trackingCompany: null,
      trackingNumber: [],
      trackingUrl: [],
      createdAt: T,
      updatedAt: T,
      cancelledAt: T,
    };
    expect(ZFulfillment.safeParse(f).success).toBe(true);
    expect(ZFulfillment.safeParse({ ...f, cancelledAt: null }).success).toBe(true);
    const { cancelledAt: _c, ...noCancel } = f;
    expect(ZFulfillment.safeParse(noCancel).success).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------
describe('claim filing (D22, D23)', () => {
  const file = {
    email: 'c@example.com',
    salesChannel: 'ONLINE',
    claimCategory: 'SHIPPING',
    fulfillmentIssues: [
      {
        sourceFulfillmentId: 'f-1',
        issues: [
          {
            issueType: 'DAMAGED',
            quantity: 1,
            sourceItemId: 'li-1',
            details: 'broken',
            images: ['https://img.example/1.png'],
          },
        ],
      },
    ],
    resolution: { desiredMethod: 'REFUND' },
  };

  it('accepts a minimal filing', () => {
    expect(ZClaimFile.safeParse(file).success).toBe(true);
  });

  it.each(['email', 'salesChannel', 'claimCategory', 'fulfillmentIssues', 'resolution'])('requires %s', (field) => {
    const body: Record<string, unknown> = { ...file };
    delete body[field];
    expect(ZClaimFile.safeParse(body).success).toBe(false);
  });

  it('requires resolution.desiredMethod and at least one issue', () => {
    expect(ZClaimFile.safeParse({ ...file, resolution: {} }).success).toBe(false);
    expect(ZClaimFile.safeParse({ ...file, resolution: { desiredMethod: 'CASH' } }).success).toBe(false);
    expect(ZClaimFile.safeParse({ ...file, fulfillmentIssues: [] }).success).toBe(false);
    expect(
      ZClaimFile.safeParse({ ...file, fulfillmentIssues: [{ sourceFulfillmentId: 'f', issues: [] }] }).success,
    ).toBe(false);
  });

  it('checks issue types, positive integer quantities and image limits', () => {
    const withIssue = (issue: Record<string, unknown>) => ({ ...file, fulfillmentIssues: [{ issues: [issue] }] });
    expect(ZClaimFile.safeParse(withIssue({ issueType: 'STOLEN', quantity: 3 })).success).toBe(true);
    expect(ZClaimFile.safeParse(withIssue({ issueType: 'MULTIPLE', quantity: 1 })).success).toBe(false);
    expect(ZClaimFile.safeParse(withIssue({ issueType: 'LOST', quantity: 1 })).success).toBe(false);
    expect(ZClaimFile.safeParse(withIssue({ issueType: 'DAMAGED', quantity: 0 })).success).toBe(false);
    expect(ZClaimFile.safeParse(withIssue({ issueType: 'DAMAGED', quantity: -1 })).success).toBe(false);
    expect(ZClaimFile.safeParse(withIssue({ issueType: 'DAMAGED', quantity: 1.5 })).success).toBe(false);
    const img = 'https://img.example/x.png';
    expect(
      ZClaimFile.safeParse(withIssue({ issueType: 'DAMAGED', quantity: 1, images: Array(20).fill(img) })).success,
    ).toBe(true);
    expect(
      ZClaimFile.safeParse(withIssue({ issueType: 'DAMAGED', quantity: 1, images: Array(21).fill(img) })).success,
    ).toBe(false);
    expect(ZClaimFile.safeParse(withIssue({ issueType: 'DAMAGED', quantity: 1, images: ['ftp://x/y'] })).success).toBe(
      false,
    );
    expect(
      ZClaimFile.safeParse(withIssue({ issueType: 'DAMAGED', quantity: 1, details: 'x'.repeat(10_001) })).success,
    ).toBe(false);
    const many = Array.from({ length: 101 }, () => ({ issueType: 'DAMAGED', quantity: 1 }));
    expect(ZClaimFile.safeParse({ ...file, fulfillmentIssues: [{ issues: many }] }).success).toBe(false);
  });

  it('checks enums and rejects unknown properties (D3)', () => {
    expect(ZClaimFile.safeParse({ ...file, salesChannel: 'PHONE' }).success).toBe(false);
    expect(ZClaimFile.safeParse({ ...file, claimCategory: 'THEFT' }).success).toBe(false);
    expect(ZClaimFile.safeParse({ ...file, claimFiledFrom: 'INTERNAL' }).success).toBe(true);
    expect(ZClaimFile.safeParse({ ...file, claimFiledFrom: 'PARTNER' }).success).toBe(false);
    expect(ZClaimFile.safeParse({ ...file, claimState: 'APPROVED' }).success).toBe(false);
    expect(ZClaimFile.safeParse({ ...file, resolution: { desiredMethod: 'RESHIP', extra: 1 } }).success).toBe(false);
    expect(ZClaimFile.safeParse({ ...file, options: { fromValet: true, other: true } }).success).toBe(false);
    expect(
      ZClaimFile.safeParse({
        ...file,
        resolution: { desiredMethod: 'RESHIP', warrantyPeriod: 'P2Y', customerSignature: 'https://s.example/sig.png' },
      }).success,
    ).toBe(true);
    expect(
      ZClaimFile.safeParse({ ...file, resolution: { desiredMethod: 'RESHIP', warrantyPeriod: '2 years' } }).success,
    ).toBe(false);
  });
});

describe('offline claim filing (D23)', () => {
  const offline = {
    customer: { email: 'c@example.com', phoneNumber: '+44 20 7946 0000' },
    items: [{ name: 'Blender', price: 99.99, sourceProductId: 'p-1', warrantyPeriod: 'P1Y' }],
    warranty: { dateOfPurchase: '2025-12-24', receiptRequired: true, receiptImages: ['https://r.example/1.jpg'] },
    salesChannel: 'IN_STORE',
    claimCategory: 'WARRANTY',
    issueType: 'DEFECTIVE_ITEM',
    resolution: 'REFUND',
  };

  it('accepts a complete filing', () => {
    expect(ZOfflineClaimFile.safeParse(offline).success).toBe(true);
    expect(
      ZOfflineClaimFile.safeParse({
        ...offline,
        shippingAddress: { firstName: 'A', city: 'X', lat: 51.5, lng: -0.12, addressOrigin: 'CONCIERGE' },
        storeId: 'st_1',
        signature: 'https://s.example/sig.png',
      }).success,
    ).toBe(true);
  });

  it('requires customer.email, exactly one item, warranty.dateOfPurchase, claimCategory, salesChannel', () => {
    expect(ZOfflineClaimFile.safeParse({ ...offline, customer: { phoneNumber: '+1 555 0000' } }).success).toBe(false);
    expect(ZOfflineClaimFile.safeParse({ ...offline, items: [] }).success).toBe(false);
    expect(ZOfflineClaimFile.safeParse({ ...offline, items: [{ name: 'a' }, { name: 'b' }] }).success).toBe(false);
    expect(ZOfflineClaimFile.safeParse({ ...offline, warranty: { receiptRequired: false } }).success).toBe(false);
    const { claimCategory: _c, ...noCategory } = offline;
    expect(ZOfflineClaimFile.safeParse(noCategory).success).toBe(false);
    const { salesChannel: _s, ...noChannel } = offline;
    expect(ZOfflineClaimFile.safeParse(noChannel).success).toBe(false);
  });

  it('checks values and rejects unknown properties', () => {
    expect(ZOfflineClaimFile.safeParse({ ...offline, warranty: { dateOfPurchase: 'last week' } }).success).toBe(false);
    expect(ZOfflineClaimFile.safeParse({ ...offline, items: [{ price: -5 }] }).success).toBe(false);
    expect(ZOfflineClaimFile.safeParse({ ...offline, shippingAddress: { lat: 91 } }).success).toBe(false);
    expect(ZOfflineClaimFile.safeParse({ ...offline, resolution: 'CASH' }).success).toBe(false);
    expect(ZOfflineClaimFile.safeParse({ ...offline, storeId: id256 }).success).toBe(false);
    expect(ZOfflineClaimFile.safeParse({ ...offline, sourceOrderId: 'x' }).success).toBe(false);
    expect(ZOfflineClaimFile.safeParse({ ...offline, items: [{ name: 'a', colour: 'red' }] }).success).toBe(false);
  });

  it('answers {status, payload} echoing the request', () => {
    const answer = {
      status: 'ok',
      payload: {
        sourceOrderId: 'offline_abc',
        customer: { email: 'c@example.com', phoneNumber: null },
        item: {
          sourceProductId: null,
          sourceVariantId: null,
          name: 'Blender',
          images: null,
          sourceItemId: null,
          sku: null,
          details: null,
          productImage: null,
          price: 99.99,
          subIssueId: null,
          productDescription: null,
          warrantyPeriod: null,
        },
        warranty: { dateOfPurchase: '2025-12-24', receiptRequired: null, receiptImages: null },
        shippingAddress: null,
        storeId: 'st_1',
        signature: null,
        salesChannel: 'IN_STORE',
        claimCategory: 'WARRANTY',
        issueType: null,
        resolution: 'REFUND',
      },
    };
    expect(ZOfflineClaimFiled.safeParse(answer).success).toBe(true);
    expect(ZOfflineClaimFiled.safeParse({ ...answer, status: 'error' }).success).toBe(false);
    expect(ZOfflineClaimFiled.safeParse({ ...answer, payload: { ...answer.payload, secret: 'x' } }).success).toBe(
      false,
    );
  });
});

// ---------------------------------------------------------------------------------------
describe('claim messages and management (D22, D25, D26)', () => {
  it('validates messages', () => {
    expect(ZClaimMessageWrite.safeParse({ message: 'Hello', senderType: 'brand' }).success).toBe(true);
    expect(ZClaimMessageWrite.safeParse({ message: '', senderType: 'brand' }).success).toBe(false);
    expect(ZClaimMessageWrite.safeParse({ message: 'x'.repeat(10_001), senderType: 'brand' }).success).toBe(false);
    expect(ZClaimMessageWrite.safeParse({ message: 'Hi', senderType: 'robot' }).success).toBe(false);
    expect(ZClaimMessageWrite.safeParse({ message: 'Hi' }).success).toBe(false);
    expect(
      ZClaimMessageWrite.safeParse({
        message: 'Hi',
        senderType: 'customer',
        medias: Array(21).fill('https://m.example/1'),
      }).success,
    ).toBe(false);
    expect(ZClaimMessageWrite.safeParse({ message: 'Hi', senderType: 'customer', claimId: 'c' }).success).toBe(false);
  });

  it('validates approvals', () => {
    expect(ZClaimApprove.safeParse({ resolutions: [{ type: 'RESHIP', itemId: 'li-1', quantity: 1 }] }).success).toBe(
      true,
    );
    expect(
      ZClaimApprove.safeParse({
        resolutions: [
          {
            type: 'REFUND',
            paidValue: 12.5,
            paidCurrency: 'EUR',
            includeShipping: true,
            shippingAmount: 4.99,
            details: 'ok',
          },
        ],
      }).success,
    ).toBe(true);
    expect(ZClaimApprove.safeParse({ resolutions: [] }).success).toBe(false);
    expect(ZClaimApprove.safeParse({ resolutions: [{ type: 'CASH' }] }).success).toBe(false);
    expect(ZClaimApprove.safeParse({ resolutions: [{ type: 'REFUND', paidValue: -1 }] }).success).toBe(false);
    expect(ZClaimApprove.safeParse({ resolutions: [{ type: 'REFUND', paidCurrency: 'ABC' }] }).success).toBe(false);
    expect(ZClaimApprove.safeParse({ resolutions: [{ type: 'REFUND', quantity: 0 }] }).success).toBe(false);
    expect(ZClaimApprove.safeParse({ resolutions: [{ type: 'REFUND', bogus: 1 }] }).success).toBe(false);
    expect(ZClaimApprove.safeParse({ resolutions: Array(101).fill({ type: 'RESHIP' }) }).success).toBe(false);
    // D26: the store credit value is paidValue.
    expect(ZClaimApprove.safeParse({ resolutions: [{ type: 'STORE_CREDIT' }] }).success).toBe(false);
    expect(ZClaimApprove.safeParse({ resolutions: [{ type: 'STORE_CREDIT', paidValue: 20 }] }).success).toBe(true);
  });

  it('validates denials with the 14 reasons', () => {
    expect(ZClaimDeny.safeParse({ reason: 'POTENTIAL_FRAUD', details: 'x' }).success).toBe(true);
    expect(ZClaimDeny.safeParse({ reason: 'EXPIRED30' }).success).toBe(true);
    expect(ZClaimDeny.safeParse({ reason: 'BECAUSE' }).success).toBe(false);
    expect(ZClaimDeny.safeParse({}).success).toBe(false);
    expect(ZClaimDeny.safeParse({ reason: 'OTHER', note: 'x' }).success).toBe(false);
  });

  it('transition targets every state but APPROVED and DENIED', () => {
    expect(ZClaimTransition.safeParse({ claimState: 'OPEN', note: 'picked up' }).success).toBe(true);
    expect(ZClaimTransition.safeParse({ claimState: 'ARCHIVED' }).success).toBe(true);
    expect(ZClaimTransition.safeParse({ claimState: 'APPROVED' }).success).toBe(false);
    expect(ZClaimTransition.safeParse({ claimState: 'DENIED' }).success).toBe(false);
    expect(ZClaimTransition.safeParse({ claimState: 'REOPENED' }).success).toBe(false);
  });

  it('encodes the D22 state machine', () => {
    expect(CLAIM_STATES).toHaveLength(14);
    expect(canTransition('NEW', 'OPEN')).toBe(true);
    expect(canTransition('WAITING_FOR_OP', 'APPROVED')).toBe(true);
    expect(canTransition('OPEN', 'TEMPORARILY_DISMISSED')).toBe(true);
    expect(canTransition('NEW', 'NEW')).toBe(false);
    expect(canTransition('NEW', 'RESOLVED')).toBe(false);
    expect(canTransition('TEMPORARILY_DISMISSED', 'OPEN')).toBe(true);
    expect(canTransition('TEMPORARILY_DISMISSED', 'NEW')).toBe(false);
    expect(canTransition('APPROVED', 'RESOLVED_BY_BRAND')).toBe(true);
    expect(canTransition('APPROVED', 'DENIED')).toBe(false);
    expect(canTransition('DENIED', 'CLOSED')).toBe(true);
    expect(canTransition('CLOSED', 'ARCHIVED')).toBe(true);
    expect(canTransition('CLOSED', 'OPEN')).toBe(false);
    for (const s of CLAIM_STATES) expect(canTransition('ARCHIVED', s)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------
describe('claim reads (D24)', () => {
  const item = {
    id: 'ci_1',
    claimId: 'cl_1',
    itemId: 'li-1',
    quantity: 1,
    issueType: 'DAMAGED',
    details: 'cracked',
    images: ['https://example.com/1.jpg'],
    sourceFulfillmentId: null,
    sourceProductId: 'p-1',
    sourceVariantId: null,
    name: 'Mug',
    createdAt: T,
    updatedAt: T,
    deletedAt: null,
  };
  const claim = {
    id: 'cl_1',
    claimFiledFrom: 'EXTERNAL',
    customerId: null,
    storeId: 'st_1',
    orderId: 'ord_1',
    sourceOrderId: 'so-1',
    sourceOrderNumber: '#1',
    authorName: 'Ann',
    authorEmail: 'a@example.com',
    claimDescription: null,
    resolutionRequested: 'RESHIP',
    resolutionDate: null,
    claimState: 'APPROVED',
    claimType: 'DAMAGED',
    isOta: false,
    otaDescription: null,
    externalSource: 'api',
    policyId: null,
    claimCategory: 'SHIPPING',
    salesChannel: 'ONLINE',
    denyReason: null,
    denyDetails: null,
    createdAt: T,
    updatedAt: T,
    deletedAt: null,
    claimItems: [item],
    claimMessages: [
      { senderType: 'customer', id: 'm_1', claimId: 'cl_1', message: 'hi', authorName: null, medias: [] },
    ],
    claimResolutions: [
      {
        id: 'r_1',
        claimId: 'cl_1',
        userId: null,
        resolutionType: 'STORE_CREDIT',
        resolutionDetails: null,
        paidValue: 20,
        paidCurrency: 'USD',
        paidOriginalValue: null,
        includeShipping: false,
        shippingAmount: null,
        creditStore: true,
        createdAt: T,
        updatedAt: T,
        deletedAt: null,
      },
    ],
    claimStoreCredits: [
      {
        code: 'SC-ABC',
        emailStatus: 'PENDING',
        emailTime: null,
        creditValue: 20,
        bonusValue: 2,
        totalValue: 22,
        bonus: 10,
        bonusType: 'PERCENTAGE',
        creditCurrency: 'USD',
        exchangeRate: null,
        claimId: 'cl_1',
        createdAt: T,
        updatedAt: T,
        deletedAt: null,
      },
    ],
    claimDocuments: [
      {
        id: 'd_1',
        claimId: 'cl_1',
        url: 'https://d.example/sig.png',
        documentType: 'SIGNATURE',
        createdAt: T,
        updatedAt: T,
        deletedAt: null,
      },
    ],
    policy: null,
    viewClaimUrl: 'https://claims.example/cl_1',
    risk: { level: 'low', signals: [] },
  };

  it('accepts a spec-shaped claim record', () => {
    const r = ZClaim.safeParse(claim);
    expect(r.error?.issues ?? []).toEqual([]);
    expect(r.success).toBe(true);
  });

  it('accepts a policy object', () => {
    const policy = {
      id: 'pol_1',
      customerAmount: 1,
      brandAmount: 0.5,
      insuredAmount: 100,
      premiumPaid: 1.5,
      premiumDiscountedAmount: 0,
      premiumCurrency: 'USD',
      fundedBy: 'customer',
      claim: { id: 'cl_1', claimState: 'APPROVED' },
      createdAt: T,
      updatedAt: T,
      removedAt: null,
      deletedAt: null,
      hybridOperator: 'AND',
    };
    expect(ZClaim.safeParse({ ...claim, policyId: 'pol_1', policy }).success).toBe(true);
    expect(ZClaim.safeParse({ ...claim, policy: { ...policy, hybridOperator: 'XOR' } }).success).toBe(false);
  });

  it('checks enums, MULTIPLE claimType and strictness', () => {
    expect(ZClaim.safeParse({ ...claim, claimType: 'MULTIPLE' }).success).toBe(true);
    expect(ZClaim.safeParse({ ...claim, claimType: null }).success).toBe(true);
    expect(ZClaim.safeParse({ ...claim, claimState: 'PENDING' }).success).toBe(false);
    expect(ZClaim.safeParse({ ...claim, claimFiledFrom: 'OTHER' }).success).toBe(false);
    expect(ZClaim.safeParse({ ...claim, internalNotes: 'x' }).success).toBe(false);
    expect(ZClaim.safeParse({ ...claim, claimItems: [{ ...item, secret: 1 }] }).success).toBe(false);
    const { claimDocuments: _d, ...missing } = claim;
    expect(ZClaim.safeParse(missing).success).toBe(false);
    expect(ZClaim.safeParse({ ...claim, viewClaimUrl: 'nope' }).success).toBe(false);
  });

  it('accepts a spec-shaped list node', () => {
    const node = {
      id: 'cl_1',
      storeId: 'st_1',
      orderId: 'ord_1',
      sourceOrderId: 'so-1',
      sourceOrderNumber: '#1',
      authorName: null,
      authorEmail: null,
      claimDescription: null,
      claimState: 'NEW',
      isOta: false,
      otaDescription: null,
      externalSource: 'api',
      claimType: 'WRONG_ITEM',
      createdAt: T,
      updatedAt: T,
      deletedAt: null,
      policyId: null,
      claimResolutions: [
        {
          id: 'r',
          claimId: 'cl_1',
          resolution: 'REFUND',
          claimState: 'APPROVED',
          createdAt: T,
          updatedAt: T,
          deletedAt: null,
        },
      ],
      claimItems: [item],
      claimMessages: [{ id: 'm', claimId: 'cl_1', message: 'x', authorName: null, medias: [] }],
      risk: {
        level: 'medium',
        signals: [{ code: 'repeat_claimer', detail: 'Two other claims', relatedClaimIds: ['cl_2', 'cl_3'] }],
      },
    };
    expect(ZClaimListNode.safeParse(node).success).toBe(true);
    expect(ZClaimListNode.safeParse({ ...node, viewClaimUrl: 'https://x.example' }).success).toBe(false);
  });

  it('parses the list query (D24 paging and filters)', () => {
    const q = ZClaimListQuery.safeParse({
      first: '250',
      after: 'abc',
      claimState: 'OPEN',
      createdAtMin: T,
      sourceOrderId: 'so-1',
    });
    expect(q.success).toBe(true);
    expect(q.data?.first).toBe(250);
    expect(ZClaimListQuery.safeParse({}).success).toBe(true);
    expect(ZClaimListQuery.safeParse({ first: '251' }).success).toBe(false);
    expect(ZClaimListQuery.safeParse({ first: '0' }).success).toBe(false);
    expect(ZClaimListQuery.safeParse({ last: 'ten' }).success).toBe(false);
    expect(ZClaimListQuery.safeParse({ claimState: 'LOST' }).success).toBe(false);
    expect(ZClaimListQuery.safeParse({ updatedAtMin: '31/01/2026' }).success).toBe(false);
    expect(ZClaimListQuery.safeParse({ sourceOrderId: id256 }).success).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------
describe('products (D21)', () => {
  it('accepts an all-optional update body with FULL, SIMPLE, GROUPED', () => {
    expect(ZProductWrite.safeParse({}).success).toBe(true);
    for (const productType of ['FULL', 'SIMPLE', 'GROUPED']) {
      expect(ZProductWrite.safeParse({ name: 'Mug', productType }).success).toBe(true);
    }
    expect(ZProductWrite.safeParse({ productType: 'BUNDLE' }).success).toBe(false);
    expect(ZProductWrite.safeParse({ inventoryType: 'GROUPED' }).success).toBe(false);
    expect(ZProductWrite.safeParse({ status: 'LIVE' }).success).toBe(false);
  });

  it('validates values and rejects unknown properties', () => {
    expect(
      ZProductWrite.safeParse({
        name: 'Mug',
        status: 'ACTIVE',
        description: 'A mug',
        sku: 'MUG-1',
        price: 12.5,
        tax: 1,
        inventoryType: 'FULL',
        inventoryQuantity: 10,
        productImage: 'https://img.example/mug.png',
        inStock: true,
      }).success,
    ).toBe(true);
    expect(ZProductWrite.safeParse({ price: -1 }).success).toBe(false);
    expect(ZProductWrite.safeParse({ inventoryQuantity: -1 }).success).toBe(false);
    expect(ZProductWrite.safeParse({ inventoryQuantity: 1.5 }).success).toBe(false);
    expect(ZProductWrite.safeParse({ productImage: 'mug.png' }).success).toBe(false);
    expect(ZProductWrite.safeParse({ name: '' }).success).toBe(false);
    expect(ZProductWrite.safeParse({ colour: 'red' }).success).toBe(false);
    expect(ZProductWrite.safeParse({ bundleProductIds: ['a'] }).success).toBe(false);
  });

  it('validates child creation', () => {
    const child = { productId: 'p-1-red', variantId: 'v-1', name: 'Red mug', bundleProductIds: ['p-1-blue'] };
    expect(ZProductChildWrite.safeParse(child).success).toBe(true);
    expect(ZProductChildWrite.safeParse({ name: 'x' }).success).toBe(false);
    expect(ZProductChildWrite.safeParse({ productId: 'p' }).success).toBe(false);
    expect(ZProductChildWrite.safeParse({ ...child, productId: id256 }).success).toBe(false);
    expect(ZProductChildWrite.safeParse({ ...child, productId: id255 }).success).toBe(true);
    expect(ZProductChildWrite.safeParse({ ...child, bundleProductIds: Array(251).fill('p') }).success).toBe(false);
    expect(ZProductChildWrite.safeParse({ ...child, bundleProductIds: [''] }).success).toBe(false);
    expect(ZProductChildWrite.safeParse({ ...child, parentProductId: 'x' }).success).toBe(false);
  });

  it('validates bundle removal', () => {
    expect(ZBundleRemove.safeParse({ productIds: ['a', 'b'] }).success).toBe(true);
    expect(ZBundleRemove.safeParse({ productIds: [] }).success).toBe(false);
    expect(ZBundleRemove.safeParse({}).success).toBe(false);
    expect(ZBundleRemove.safeParse({ productIds: Array(251).fill('a') }).success).toBe(false);
    expect(ZBundleRemove.safeParse({ productIds: ['a'], all: true }).success).toBe(false);
  });

  it('reads products with the D21 fields', () => {
    const p = {
      productId: 'p-1',
      name: 'Mug',
      description: null,
      sku: null,
      price: 12.5,
      tax: null,
      productImage: null,
      parentProductId: null,
      variantId: null,
      status: 'ACTIVE',
      productType: 'GROUPED',
      bundleProductIds: [],
      inventoryType: 'SIMPLE',
      inventoryQuantity: null,
      inStock: true,
    };
    expect(ZProduct.safeParse(p).success).toBe(true);
    const { inStock: _i, ...missing } = p;
    expect(ZProduct.safeParse(missing).success).toBe(false);
    expect(ZProduct.safeParse({ ...p, storeId: 'st_1' }).success).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------
describe('routes match routes.tsv', () => {
  const expected: [string, string, string, string, number, string, string][] = [
    ['PUT', '/v1/orders/:sourceOrderId', 'token', 'order:update', 200, 'plain', 'spec'],
    ['GET', '/v1/orders/:sourceOrderId', 'token', 'order:read|order:update', 200, 'plain', 'D18'],
    ['DELETE', '/v1/orders/:sourceOrderId', 'token', 'order:update', 200, 'plain', 'spec'],
    ['GET', '/v1/orders/:sourceOrderId/claims', 'token', 'claim:read|claim:update|claim:manage', 200, 'plain', 'spec'],
    ['GET', '/v1/orders/:sourceOrderId/fulfillments', 'token', 'order:read|order:update', 200, 'plain', 'spec'],
    [
      'PUT',
      '/v1/orders/:sourceOrderId/fulfillments/:sourceFulfillmentId',
      'token',
      'order:update',
      200,
      'plain',
      'D20',
    ],
    [
      'DELETE',
      '/v1/orders/:sourceOrderId/fulfillments/:sourceFulfillmentId',
      'token',
      'order:update',
      200,
      'plain',
      'spec',
    ],
    ['POST', '/v1/claims/offline', 'token', 'claim:update|claim:manage', 200, 'plain', 'spec'],
    ['POST', '/v1/claims/:sourceOrderId', 'token', 'claim:update|claim:manage', 200, 'plain', 'spec'],
    ['GET', '/v1/claims', 'token', 'claim:read|claim:update|claim:manage', 200, 'plain', 'spec'],
    ['GET', '/v1/claims/:claimId', 'token', 'claim:read|claim:update|claim:manage', 200, 'plain', 'D24'],
    ['POST', '/v1/claims/:claimId/messages', 'token', 'claim:update|claim:manage', 200, 'plain', 'D25'],
    ['POST', '/v1/claims/:claimId/approve', 'token', 'claim:manage', 200, 'plain', 'D22'],
    ['POST', '/v1/claims/:claimId/deny', 'token', 'claim:manage', 200, 'plain', 'D22'],
    ['POST', '/v1/claims/:claimId/transition', 'token', 'claim:manage', 200, 'plain', 'D22'],
    ['GET', '/v1/claims/:claimId/timeline', 'token', 'claim:read|claim:update|claim:manage', 200, 'data', 'D51'],
    ['POST', '/v1/claims/:claimId/notes', 'token', 'claim:update|claim:manage', 201, 'data', 'D51'],
    ['POST', '/v1/claims/:claimId/approve/preview', 'token', 'claim:manage', 200, 'data', 'D51'],
    ['GET', '/v1/orders', 'token', 'order:read|order:update', 200, 'plain', 'D51'],
    ['GET', '/v1/claims/export', 'token', 'claim:read|claim:update|claim:manage', 200, 'csv', 'D52'],
    ['GET', '/v2/products/:productId', 'token', 'product:read|product:update', 200, 'data', 'spec'],
    ['PUT', '/v2/products/:productId', 'token', 'product:update', 200, 'data', 'spec'],
    ['DELETE', '/v2/products/:productId', 'token', 'product:update', 200, 'data', 'spec'],
    ['POST', '/v2/products/:productId/children', 'token', 'product:update', 200, 'data', 'spec'],
    ['DELETE', '/v2/products/:productId/children/:childId', 'token', 'product:update', 200, 'data', 'spec'],
    ['DELETE', '/v2/products/:productId/bundle/remove', 'token', 'product:update', 200, 'data', 'spec'],
  ];
  type AnyRoute = {
    method: string;
    path: string;
    responses: Record<number, { safeParse: (v: unknown) => { success: boolean } }>;
    metadata: RouteMeta;
    strictStatusCodes?: boolean;
    headers?: unknown;
  };
  const all = [
    ...Object.values(orderRoutes),
    ...Object.values(claimRoutes),
    ...Object.values(productRoutes),
  ] as unknown as AnyRoute[];

  it('defines exactly the 26 routes', () => {
    expect(all).toHaveLength(expected.length);
  });

  it.each(expected)('%s %s', (method, path, auth, scopes, success, body, source) => {
    const route = all.find((r) => r.method === method && r.path === path);
    expect(route).toBeDefined();
    const m = route!.metadata;
    expect(m.auth).toBe(auth);
    expect(formatScopeRule(m.scopes)).toBe(scopes);
    expect(m.body).toBe(body);
    expect(m.source).toBe(source);
    expect(route!.strictStatusCodes).toBe(true);
    expect(route!.responses[success]).toBeDefined();
    for (const s of [400, 401, 403, 404, 429]) expect(route!.responses[s], `${s}`).toBeDefined();
    if (method === 'POST') {
      expect(route!.responses[409]).toBeDefined(); // D33
      expect(route!.headers).toBeDefined();
    }
  });

  it('wraps /v2 answers in data (D1) and leaves /v1 plain', () => {
    const ok = { status: 'ok' };
    expect(productRoutes.remove.responses[200].safeParse({ data: ok }).success).toBe(true);
    expect(productRoutes.remove.responses[200].safeParse(ok).success).toBe(false);
    expect(orderRoutes.remove.responses[200].safeParse(ok).success).toBe(true);
    expect(orderRoutes.remove.responses[200].safeParse({ data: ok }).success).toBe(false);
  });

  it('checks path params at 255 characters (D3)', () => {
    expect(orderRoutes.get.pathParams.safeParse({ sourceOrderId: id255 }).success).toBe(true);
    expect(orderRoutes.get.pathParams.safeParse({ sourceOrderId: id256 }).success).toBe(false);
    expect(orderRoutes.get.pathParams.safeParse({ sourceOrderId: '' }).success).toBe(false);
  });

  it('lists offline filing before the sourceOrderId route', () => {
    const keys = Object.keys(claimRoutes);
    expect(keys.indexOf('fileOffline')).toBeLessThan(keys.indexOf('file'));
  });
});
