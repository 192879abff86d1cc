import type { TQuoteDuration } from '@protection-service/contract';
import { durationYears } from '@protection-service/contract';
import type { PriceRuleRow, PriceTermsRow } from '../../db/schema';
import { add, compare, type Decimal, decimal, mul, roundToCurrency, shift, toNumber, ZERO } from '../../lib/money';

/**
 * The quote engine (D31, D38), behind POST /v2/quote and the public reads' `quote`. Pure:
 * the caller chooses the rule set (merchant or cohort). Every amount is computed in exact
 * decimal (../../lib/money.ts) and rounded half-up once, in the currency's minor units.
 */

export interface QuoteLineItem {
  price: number;
  quantity: number;
  isShippable?: boolean;
}

export interface QuoteInput {
  policyType: 'SHIPPING' | 'EXTENDED_WARRANTY';
  lineItems?: readonly QuoteLineItem[];
  orderTotal?: number;
  duration?: TQuoteDuration | null;
}

interface PriceResult {
  subtotal: number;
  eligible: boolean;
  premium: number;
  customerAmount: number;
  brandAmount: number;
  paidBy: string | null;
  operator: 'AND' | 'OR';
  ruleId: string | null;
}

/**
 * D31/D38 subtotal: the sum of price × quantity over the line items (non-shippable items
 * dropped for SHIPPING), else the order total; rounded to the currency's minor units.
 */
function quoteSubtotal(input: QuoteInput, currency?: string | null): Decimal {
  if (input.lineItems) {
    const items =
      input.policyType === 'SHIPPING' ? input.lineItems.filter((i) => i.isShippable !== false) : input.lineItems;
    const sum = items.reduce((acc, i) => add(acc, mul(decimal(i.price), decimal(i.quantity))), ZERO);
    return roundToCurrency(sum, currency);
  }
  return roundToCurrency(decimal(input.orderTotal ?? 0), currency);
}

/**
 * Prices a cart with a rule set (D30, D31, D38): the rule whose half-open range [min, max)
 * holds the rounded subtotal gives the customer and brand amounts (`fixed`: the amount;
 * `percentage`: subtotal × amount / 100), each multiplied by the years of an extended
 * warranty and rounded half-up once. The premium is the sum of the rounded amounts for `AND`
 * and the rounded customer amount for `OR`. No matching rule: not eligible, amounts zero.
 */
export function priceQuote(rules: readonly PriceRuleRow[], input: QuoteInput, currency?: string | null): PriceResult {
  const subtotal = quoteSubtotal(input, currency);
  const rule = rules.find((r) => compare(subtotal, decimal(r.min)) >= 0 && compare(subtotal, decimal(r.max)) < 0);
  const operator = rule?.terms.operator ?? 'AND';
  if (!rule) {
    return {
      subtotal: toNumber(subtotal),
      eligible: false,
      premium: 0,
      customerAmount: 0,
      brandAmount: 0,
      paidBy: null,
      operator,
      ruleId: null,
    };
  }
  const years = decimal(input.policyType === 'EXTENDED_WARRANTY' && input.duration ? durationYears(input.duration) : 1);
  const amount = (terms: PriceTermsRow | undefined): Decimal => {
    if (!terms) return ZERO;
    const base = terms.type === 'percentage' ? shift(mul(subtotal, decimal(terms.amount)), 2) : decimal(terms.amount);
    return roundToCurrency(mul(base, years), currency);
  };
  const customer = amount(rule.terms.customer);
  const brand = amount(rule.terms.brand);
  return {
    subtotal: toNumber(subtotal),
    eligible: true,
    premium: toNumber(operator === 'OR' ? customer : add(customer, brand)),
    customerAmount: toNumber(customer),
    brandAmount: toNumber(brand),
    paidBy: rule.terms.paidBy ?? null,
    operator,
    ruleId: rule.id,
  };
}
