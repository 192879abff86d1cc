import type { PriceRuleRow, PriceTermsRow } from '../db/schema';
import { roundMoney } from './money';

export interface QuoteLineItem {
  price: number;
  quantity: number;
  isShippable?: boolean;
}

/**
 * D31 subtotal: the sum of price × quantity over the line items (non-shippable items dropped
 * for SHIPPING), else the pre-computed order total.
 */
export function quoteSubtotal(
  policyType: 'SHIPPING' | 'EXTENDED_WARRANTY',
  input: { lineItems?: QuoteLineItem[]; orderTotal?: number },
  currency?: string | null,
): number {
  if (input.lineItems) {
    const items = policyType === 'SHIPPING' ? input.lineItems.filter((i) => i.isShippable !== false) : input.lineItems;
    return roundMoney(
      items.reduce((sum, i) => sum + i.price * i.quantity, 0),
      currency,
    );
  }
  return roundMoney(input.orderTotal ?? 0, currency);
}

export interface PriceResult {
  eligible: boolean;
  premium: number;
  customerAmount: number;
  brandAmount: number;
  paidBy: string | null;
  operator: 'AND' | 'OR';
  ruleId: string | null;
}

/**
 * Prices a subtotal with a rule set (D30, D31): the rule whose half-open range [min, max)
 * holds the subtotal gives the customer and brand amounts (`fixed`: the amount;
 * `percentage`: subtotal × amount / 100), multiplied by `years` for extended warranty.
 * The premium is their sum for `AND` and the customer amount for `OR`. No matching rule:
 * not eligible, all amounts zero.
 */
export function priceSubtotal(
  rules: readonly PriceRuleRow[],
  subtotal: number,
  currency?: string | null,
  years = 1,
): PriceResult {
  const rule = rules.find((r) => subtotal >= r.min && subtotal < r.max);
  const operator = rule?.terms.operator ?? 'AND';
  if (!rule) {
    return { eligible: false, premium: 0, customerAmount: 0, brandAmount: 0, paidBy: null, operator, ruleId: null };
  }
  const amount = (terms: PriceTermsRow | undefined) =>
    terms
      ? roundMoney((terms.type === 'percentage' ? (subtotal * terms.amount) / 100 : terms.amount) * years, currency)
      : 0;
  const customerAmount = amount(rule.terms.customer);
  const brandAmount = amount(rule.terms.brand);
  const premium = operator === 'OR' ? customerAmount : roundMoney(customerAmount + brandAmount, currency);
  return {
    eligible: true,
    premium,
    customerAmount,
    brandAmount,
    paidBy: rule.terms.paidBy ?? null,
    operator,
    ruleId: rule.id,
  };
}
