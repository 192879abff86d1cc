import { randomBytes } from 'node:crypto';
import { encodeBase32UpperCaseNoPadding } from '@oslojs/encoding';
import { minorUnits, type TMerchantSettings } from '@protection-service/contract';
import { dividedBy, exact, fromMinorUnits, lesser, times, toMinorUnits } from '../../lib/money';

export interface StoreCredit {
  creditValue: number;
  bonusValue: number;
  totalValue: number;
  /** The bonus setting applied: an amount (FLAT) or a percentage (PERCENTAGE). */
  bonus: number;
  bonusType: 'NONE' | 'FLAT' | 'PERCENTAGE';
  creditType: TMerchantSettings['storeCreditType'];
  currency: string;
}

type CreditSettings = Pick<
  TMerchantSettings,
  'storeCreditBonus' | 'storeCreditBonusType' | 'storeCreditMaxPercentage' | 'storeCreditType'
>;

/**
 * D26: the store credit of a `STORE_CREDIT` resolution, from the resolved settings (D37).
 * `creditValue` is the paid value; the bonus is the flat amount or `creditValue × bonus / 100`,
 * capped at `creditValue × storeCreditMaxPercentage / 100`. Arithmetic is exact in decimal
 * (rational numbers over BigInt) and each amount is rounded half-up once, to the currency's
 * minor units (D6); the total is the sum of the rounded credit and bonus.
 */
export function storeCredit(paidValue: number, currency: string, settings: CreditSettings): StoreCredit {
  const creditUnits = toMinorUnits(exact(paidValue), currency);
  // creditValue as recorded (rounded), so the bonus is a percentage of what the shopper gets.
  const credit = { n: creditUnits, d: 10n ** BigInt(minorUnits(currency)) };
  const setting = exact(settings.storeCreditBonus);
  const percentage = settings.storeCreditBonusType === 'percentage';
  const uncapped = percentage ? dividedBy(times(credit, setting), 100n) : setting;
  const cap = dividedBy(times(credit, exact(settings.storeCreditMaxPercentage)), 100n);
  const bonusUnits = toMinorUnits(lesser(uncapped, cap), currency);
  return {
    creditValue: fromMinorUnits(creditUnits, currency),
    bonusValue: fromMinorUnits(bonusUnits, currency),
    totalValue: fromMinorUnits(creditUnits + bonusUnits, currency),
    bonus: settings.storeCreditBonus,
    bonusType: settings.storeCreditBonus === 0 ? 'NONE' : percentage ? 'PERCENTAGE' : 'FLAT',
    creditType: settings.storeCreditType,
    currency,
  };
}

/** A store-credit code: `SC-` and 80 random bits in base32 (D26 asks for a unique code). */
export function storeCreditCode(): string {
  return `SC-${encodeBase32UpperCaseNoPadding(randomBytes(10))}`;
}
