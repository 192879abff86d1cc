import { describe, expect, it } from 'vitest';
import type { PriceRuleRow } from '../../src/db/schema';
import { priceQuote, type QuoteInput } from '../../src/domain/partner/quote';
import { decimal, roundHalfUp, roundMoney, toNumber } from '../../src/lib/money';

/**
 * The quote engine (D31) in exact decimals with D38 rounding: every expected amount below is
 * worked out by hand in the comment beside it. The subtotal is rounded to the currency's
 * minor units first; each of the customer and brand amounts is computed from it, multiplied
 * by the years, and rounded half-up once; premium = sum (AND) or customer (OR).
 */

const pct = (amount: number) => ({ amount, type: 'percentage' as const });
const fixed = (amount: number) => ({ amount, type: 'fixed' as const });

/** Tiered shipping: fixed below 100, percentages to 1000, OR above. */
const TIERS: PriceRuleRow[] = [
  { id: 'a', min: 0, max: 100, terms: { customer: fixed(2.5) } },
  { id: 'b', min: 100, max: 1000, terms: { customer: pct(1.5), brand: pct(0.5) } },
  { id: 'c', min: 1000, max: 1e10, terms: { operator: 'OR', paidBy: 'customer', customer: pct(0.1), brand: fixed(3) } },
];
const ONE_PCT: PriceRuleRow[] = [{ id: 'p1', min: 0, max: 1e12, terms: { customer: pct(1) } }];
const TEN_PCT: PriceRuleRow[] = [{ id: 'p10', min: 0, max: 1e12, terms: { customer: pct(10) } }];
const MIXED: PriceRuleRow[] = [{ id: 'm', min: 0, max: 1e12, terms: { customer: pct(2.5), brand: fixed(1.5) } }];
const WARRANTY: PriceRuleRow[] = [
  { id: 'w1', min: 0, max: 1000, terms: { customer: pct(10) } },
  { id: 'w2', min: 1000, max: 1e12, terms: { operator: 'AND', customer: fixed(25), brand: fixed(2.5) } },
];
const PARTS: PriceRuleRow[] = [
  { id: 'none', min: 0, max: 100, terms: {} },
  { id: 'brand', min: 100, max: 200, terms: { brand: fixed(4) } },
  { id: 'brand-or', min: 200, max: 300, terms: { operator: 'OR', brand: fixed(4) } },
];
const GAP: PriceRuleRow[] = [
  { id: 'low', min: 0, max: 50, terms: { customer: fixed(1) } },
  { id: 'high', min: 60, max: 100, terms: { customer: fixed(2) } },
];

interface Row {
  name: string;
  rules: PriceRuleRow[];
  input: QuoteInput;
  currency?: string;
  /** subtotal, customerAmount, brandAmount, premium; ruleId (null: not eligible). */
  want: [number, number, number, number, string | null];
  operator?: 'AND' | 'OR';
}

const S = (orderTotal: number): QuoteInput => ({ policyType: 'SHIPPING', orderTotal });
const EW = (orderTotal: number, years: number): QuoteInput => ({
  policyType: 'EXTENDED_WARRANTY',
  orderTotal,
  duration: `P${years}Y` as QuoteInput['duration'],
});

const TABLE: Row[] = [
  // [min, max) boundaries of the tiers
  { name: '0 is inside [0, 100): fixed 2.5', rules: TIERS, input: S(0), want: [0, 2.5, 0, 2.5, 'a'] },
  { name: '99.99 stays in the first tier', rules: TIERS, input: S(99.99), want: [99.99, 2.5, 0, 2.5, 'a'] },
  { name: '99.994 rounds down to 99.99 first', rules: TIERS, input: S(99.994), want: [99.99, 2.5, 0, 2.5, 'a'] },
  // 99.995 → 100.00 (half-up) → tier b: 1.5% = 1.50, 0.5% = 0.50
  { name: '99.995 rounds up into [100, 1000)', rules: TIERS, input: S(99.995), want: [100, 1.5, 0.5, 2, 'b'] },
  { name: '100 is the min of tier b (inclusive)', rules: TIERS, input: S(100), want: [100, 1.5, 0.5, 2, 'b'] },
  // 999.99 × 1.5% = 14.99985 → 15.00; × 0.5% = 4.99995 → 5.00; premium 20.00
  { name: '999.99 halves round up', rules: TIERS, input: S(999.99), want: [999.99, 15, 5, 20, 'b'] },
  // 1000 × 0.1% = 1.00; brand fixed 3; OR → premium = customer = 1
  {
    name: '1000 is the max of b (exclusive): tier c, OR',
    rules: TIERS,
    input: S(1000),
    want: [1000, 1, 3, 1, 'c'],
    operator: 'OR',
  },
  // 1234.565 → 1234.57; × 0.1% = 1.23457 → 1.23
  {
    name: '1234.565 → 1234.57 first',
    rules: TIERS,
    input: S(1234.565),
    want: [1234.57, 1.23, 3, 1.23, 'c'],
    operator: 'OR',
  },
  // 10^9 × 0.1% = 1,000,000
  { name: 'a total of 10^9', rules: TIERS, input: S(1e9), want: [1e9, 1e6, 3, 1e6, 'c'], operator: 'OR' },
  { name: '10^10 is past the last max: not eligible', rules: TIERS, input: S(1e10), want: [1e10, 0, 0, 0, null] },
  // 1% halves: binary floats get these wrong (1.005 * 100 = 100.49999...)
  { name: '1% of 100.50 = 1.005 → 1.01', rules: ONE_PCT, input: S(100.5), want: [100.5, 1.01, 0, 1.01, 'p1'] },
  { name: '1% of 267.50 = 2.675 → 2.68', rules: ONE_PCT, input: S(267.5), want: [267.5, 2.68, 0, 2.68, 'p1'] },
  { name: '1% of 0.50 = 0.005 → 0.01', rules: ONE_PCT, input: S(0.5), want: [0.5, 0.01, 0, 0.01, 'p1'] },
  { name: '1% of 0.40 = 0.004 → 0.00', rules: ONE_PCT, input: S(0.4), want: [0.4, 0, 0, 0, 'p1'] },
  { name: '1% of 150 = 1.50', rules: ONE_PCT, input: S(150), want: [150, 1.5, 0, 1.5, 'p1'] },
  { name: '1% of 100.49 = 1.0049 → 1.00', rules: ONE_PCT, input: S(100.49), want: [100.49, 1, 0, 1, 'p1'] },
  // subtotal rounded first, then 10%
  { name: '1.005 → 1.01, 10% = 0.101 → 0.10', rules: TEN_PCT, input: S(1.005), want: [1.01, 0.1, 0, 0.1, 'p10'] },
  { name: '2.675 → 2.68, 10% = 0.268 → 0.27', rules: TEN_PCT, input: S(2.675), want: [2.68, 0.27, 0, 0.27, 'p10'] },
  { name: '1.015 → 1.02, 10% = 0.102 → 0.10', rules: TEN_PCT, input: S(1.015), want: [1.02, 0.1, 0, 0.1, 'p10'] },
  { name: '10.005 → 10.01, 10% = 1.001 → 1.00', rules: TEN_PCT, input: S(10.005), want: [10.01, 1, 0, 1, 'p10'] },
  { name: '10% of 0.05 = 0.005 → 0.01', rules: TEN_PCT, input: S(0.05), want: [0.05, 0.01, 0, 0.01, 'p10'] },
  { name: '10% of 0.15 = 0.015 → 0.02', rules: TEN_PCT, input: S(0.15), want: [0.15, 0.02, 0, 0.02, 'p10'] },
  { name: '10% of 10^9 = 10^8', rules: TEN_PCT, input: S(1e9), want: [1e9, 1e8, 0, 1e8, 'p10'] },
  // 0.1 × 3 = 0.3 exactly; 10% = 0.03
  {
    name: 'line items 0.1 × 3 sum to 0.30 exactly',
    rules: TEN_PCT,
    input: { policyType: 'SHIPPING', lineItems: [{ price: 0.1, quantity: 3 }] },
    want: [0.3, 0.03, 0, 0.03, 'p10'],
  },
  // 999999.99 × 1000 = 999,999,990; 10% = 99,999,999
  {
    name: 'line items up to a 10^9 total',
    rules: TEN_PCT,
    input: { policyType: 'SHIPPING', lineItems: [{ price: 999_999.99, quantity: 1000 }] },
    want: [999_999_990, 99_999_999, 0, 99_999_999, 'p10'],
  },
  // 333333.33 × 3 = 999,999.99; 10% = 99,999.999 → 100,000.00
  {
    name: '10% of 999,999.99 rounds up to 100,000',
    rules: TEN_PCT,
    input: { policyType: 'SHIPPING', lineItems: [{ price: 333_333.33, quantity: 3 }] },
    want: [999_999.99, 100_000, 0, 100_000, 'p10'],
  },
  // 0.1 + 0.2 = 0.3 exactly; 10% = 0.03
  {
    name: 'line items 0.1 + 0.2 sum to 0.30',
    rules: TEN_PCT,
    input: {
      policyType: 'SHIPPING',
      lineItems: [
        { price: 0.1, quantity: 1 },
        { price: 0.2, quantity: 1 },
      ],
    },
    want: [0.3, 0.03, 0, 0.03, 'p10'],
  },
  // Currencies (D6): JPY 0 decimals, KWD 3, unknown 2
  // 1234 × 2.5% = 30.85 → 31; brand 1.5 → 2; premium 33
  { name: 'JPY rounds to whole yen', rules: MIXED, currency: 'JPY', input: S(1234), want: [1234, 31, 2, 33, 'm'] },
  // 1234.5 → 1235 first; × 2.5% = 30.875 → 31
  { name: 'JPY subtotal 1234.5 → 1235', rules: MIXED, currency: 'JPY', input: S(1234.5), want: [1235, 31, 2, 33, 'm'] },
  // 1220 × 2.5% = 30.5 → 31
  { name: 'JPY half yen 30.5 → 31', rules: MIXED, currency: 'JPY', input: S(1220), want: [1220, 31, 2, 33, 'm'] },
  // 10.0005 → 10.001; × 2.5% = 0.250025 → 0.250; premium 0.25 + 1.5 = 1.75
  {
    name: 'KWD rounds to 3 decimals',
    rules: MIXED,
    currency: 'KWD',
    input: S(10.0005),
    want: [10.001, 0.25, 1.5, 1.75, 'm'],
  },
  // 12.345 × 2.5% = 0.308625 → 0.309; premium 1.809
  { name: 'KWD 12.345', rules: MIXED, currency: 'KWD', input: S(12.345), want: [12.345, 0.309, 1.5, 1.809, 'm'] },
  // USD: 12.345 → 12.35; × 2.5% = 0.30875 → 0.31; premium 1.81
  {
    name: 'USD 12.345 → 12.35 first',
    rules: MIXED,
    currency: 'USD',
    input: S(12.345),
    want: [12.35, 0.31, 1.5, 1.81, 'm'],
  },
  { name: 'no currency: 2 decimals', rules: MIXED, input: S(12.345), want: [12.35, 0.31, 1.5, 1.81, 'm'] },
  {
    name: 'unknown currency: 2 decimals',
    rules: MIXED,
    currency: 'ZZZ',
    input: S(12.345),
    want: [12.35, 0.31, 1.5, 1.81, 'm'],
  },
  // Extended warranty: multiplied by the years, rounded once
  { name: 'EW P1Y 199.99 × 10% = 19.999 → 20', rules: WARRANTY, input: EW(199.99, 1), want: [199.99, 20, 0, 20, 'w1'] },
  // 10.05 × 10% = 1.005; × 3 = 3.015 → 3.02 (rounding before multiplying would give 3.03)
  { name: 'EW P3Y rounds after multiplying', rules: WARRANTY, input: EW(10.05, 3), want: [10.05, 3.02, 0, 3.02, 'w1'] },
  // 1.005 × 10 = 10.05
  { name: 'EW P10Y', rules: WARRANTY, input: EW(10.05, 10), want: [10.05, 10.05, 0, 10.05, 'w1'] },
  // fixed 25 × 2 = 50, brand 2.5 × 2 = 5, premium 55
  { name: 'EW P2Y fixed amounts double', rules: WARRANTY, input: EW(1000, 2), want: [1000, 50, 5, 55, 'w2'] },
  // 0.07 × 10% = 0.007; × 7 = 0.049 → 0.05
  { name: 'EW P7Y of 0.07', rules: WARRANTY, input: EW(0.07, 7), want: [0.07, 0.05, 0, 0.05, 'w1'] },
  // EW keeps non-shippable items: 50 × 2 + 30 = 130; 10% = 13
  {
    name: 'EW counts non-shippable items',
    rules: WARRANTY,
    input: {
      policyType: 'EXTENDED_WARRANTY',
      duration: 'P1Y',
      lineItems: [
        { price: 50, quantity: 2, isShippable: false },
        { price: 30, quantity: 1 },
      ],
    },
    want: [130, 13, 0, 13, 'w1'],
  },
  // SHIPPING drops them: 30; 10% = 3
  {
    name: 'SHIPPING drops non-shippable items',
    rules: TEN_PCT,
    input: {
      policyType: 'SHIPPING',
      lineItems: [
        { price: 50, quantity: 2, isShippable: false },
        { price: 30, quantity: 1, isShippable: true },
      ],
    },
    want: [30, 3, 0, 3, 'p10'],
  },
  {
    name: 'SHIPPING with only non-shippable items prices 0',
    rules: TIERS,
    input: { policyType: 'SHIPPING', lineItems: [{ price: 500, quantity: 1, isShippable: false }] },
    want: [0, 2.5, 0, 2.5, 'a'],
  },
  {
    name: 'lineItems win over orderTotal',
    rules: TIERS,
    input: { policyType: 'SHIPPING', orderTotal: 5000, lineItems: [{ price: 10, quantity: 1 }] },
    want: [10, 2.5, 0, 2.5, 'a'],
  },
  {
    name: 'empty lineItems price 0, not orderTotal',
    rules: TIERS,
    input: { policyType: 'SHIPPING', orderTotal: 5000, lineItems: [] },
    want: [0, 2.5, 0, 2.5, 'a'],
  },
  {
    name: 'quantity 0 adds nothing',
    rules: TEN_PCT,
    input: {
      policyType: 'SHIPPING',
      lineItems: [
        { price: 99, quantity: 0 },
        { price: 20, quantity: 2 },
      ],
    },
    want: [40, 4, 0, 4, 'p10'],
  },
  // Rules with missing parts and the OR operator
  { name: 'a rule with no terms is eligible at zero', rules: PARTS, input: S(50), want: [50, 0, 0, 0, 'none'] },
  { name: 'brand only, AND: premium = brand', rules: PARTS, input: S(150), want: [150, 0, 4, 4, 'brand'] },
  {
    name: 'brand only, OR: premium = customer = 0',
    rules: PARTS,
    input: S(250),
    want: [250, 0, 4, 0, 'brand-or'],
    operator: 'OR',
  },
  // 199.999 → 200.00 → [200, 300)
  {
    name: '199.999 rounds onto the next min',
    rules: PARTS,
    input: S(199.999),
    want: [200, 0, 4, 0, 'brand-or'],
    operator: 'OR',
  },
  { name: 'a gap between rules is not eligible', rules: GAP, input: S(55), want: [55, 0, 0, 0, null] },
  { name: '59.995 → 60.00 lands in [60, 100)', rules: GAP, input: S(59.995), want: [60, 2, 0, 2, 'high'] },
  { name: '49.994 → 49.99 stays in [0, 50)', rules: GAP, input: S(49.994), want: [49.99, 1, 0, 1, 'low'] },
  { name: 'no rules at all: not eligible', rules: [], input: S(10), want: [10, 0, 0, 0, null] },
];

describe('quote engine (D31, D38)', () => {
  it('has at least 40 hand-worked cases', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
  });

  it.each(TABLE.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    const [subtotal, customerAmount, brandAmount, premium, ruleId] = row.want;
    const result = priceQuote(row.rules, row.input, row.currency);
    expect(result).toEqual({
      subtotal,
      eligible: ruleId !== null,
      premium,
      customerAmount,
      brandAmount,
      paidBy: ruleId === 'c' ? 'customer' : null,
      operator: row.operator ?? 'AND',
      ruleId,
    });
  });
});

describe('exact decimals (server/src/lib/money.ts)', () => {
  it('reads a JSON number as the decimal it spells', () => {
    expect(decimal(1.005)).toEqual({ units: 1005n, scale: 3 });
    expect(decimal(1e21)).toEqual({ units: 10n ** 21n, scale: 0 });
    expect(decimal(1.5e-7)).toEqual({ units: 15n, scale: 8 });
    expect(decimal(-2.5)).toEqual({ units: -25n, scale: 1 });
    expect(() => decimal(Number.NaN)).toThrow(RangeError);
  });

  it('reads integers, plain decimals and exponents alike, numbers or numeric text', () => {
    // Integers and plain decimals take the short paths; the rest the general pattern: one value each way.
    expect(decimal(42)).toEqual({ units: 42n, scale: 0 });
    expect(decimal(-0)).toEqual({ units: 0n, scale: 0 });
    expect(decimal(-7)).toEqual({ units: -7n, scale: 0 });
    expect(decimal(2 ** 53)).toEqual({ units: 2n ** 53n, scale: 0 });
    expect(decimal(-0.5)).toEqual({ units: -5n, scale: 1 });
    expect(decimal('12.50')).toEqual({ units: 1250n, scale: 2 });
    expect(decimal('-0.05')).toEqual({ units: -5n, scale: 2 });
    expect(decimal('007')).toEqual({ units: 7n, scale: 0 });
    expect(decimal('1.5E2')).toEqual({ units: 150n, scale: 0 });
    expect(decimal('2.5e-3')).toEqual({ units: 25n, scale: 4 });
    for (const bad of ['', ' 1', '1.', '.5', '+1', '1,5', 'Infinity', '0x10', '1e']) {
      expect(() => decimal(bad), bad).toThrow(RangeError);
    }
    expect(() => decimal(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });

  it('rounds half-up where binary floats would not', () => {
    // Math.round(1.005 * 100) / 100 === 1 and (2.675).toFixed(2) === '2.67': the paper answers are 1.01 and 2.68.
    expect(roundMoney(1.005)).toBe(1.01);
    expect(roundMoney(2.675)).toBe(2.68);
    expect(roundMoney(0.125, 'JPY')).toBe(0);
    expect(roundMoney(0.5, 'JPY')).toBe(1);
    expect(roundMoney(1.0005, 'KWD')).toBe(1.001);
    expect(toNumber(roundHalfUp(decimal(-1.005), 2))).toBe(-1.01);
    expect(toNumber(decimal(0.001))).toBe(0.001);
  });
});
