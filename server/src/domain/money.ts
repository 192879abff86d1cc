import { minorUnits } from '@protection-service/contract';

/**
 * Rounds an amount half-up to the currency's ISO 4217 minor units (D6; 2 when the currency
 * is absent or unknown). Shifting through the decimal exponent avoids binary artefacts
 * such as 1.005 * 100 = 100.49999.
 */
export function roundMoney(amount: number, currency?: string | null): number {
  const digits = minorUnits(currency);
  const shifted = Math.round(Number(`${amount}e${digits}`));
  return Number(`${shifted}e-${digits}`);
}
