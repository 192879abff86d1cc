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

/**
 * An exact non-negative rational amount `n / d` (d > 0), for arithmetic that must be exact in
 * decimal (D6: 1.005 rounds to 1.01, 0.1 × 3 is 0.3), such as the store credit of D26.
 */
export interface Exact {
  n: bigint;
  d: bigint;
}

/**
 * The exact decimal value of a number as JavaScript prints it (its shortest round-trip
 * form, which is the decimal that was written: 1.005 is 1005/1000, not the binary double
 * below it), or of a decimal string such as Postgres `numeric` text.
 */
export function exact(value: number | string): Exact {
  const m = /^(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(String(value));
  if (!m) throw new RangeError(`not a non-negative decimal: ${value}`);
  const fraction = m[2] ?? '';
  const exponent = Number(m[3] ?? 0) - fraction.length;
  const digits = BigInt(m[1]! + fraction);
  return exponent >= 0 ? { n: digits * 10n ** BigInt(exponent), d: 1n } : { n: digits, d: 10n ** BigInt(-exponent) };
}

export const times = (a: Exact, b: Exact): Exact => ({ n: a.n * b.n, d: a.d * b.d });
export const dividedBy = (a: Exact, k: bigint): Exact => ({ n: a.n, d: a.d * k });
export const lesser = (a: Exact, b: Exact): Exact => (a.n * b.d <= b.n * a.d ? a : b);

/** An exact amount rounded half-up to the currency's minor units (D6), as a count of them. */
export function toMinorUnits(amount: Exact, currency?: string | null): bigint {
  const scaled = amount.n * 10n ** BigInt(minorUnits(currency));
  const whole = scaled / amount.d;
  return 2n * (scaled % amount.d) >= amount.d ? whole + 1n : whole;
}

/** A count of the currency's minor units as a JSON amount in major units (D6). */
export function fromMinorUnits(units: bigint, currency?: string | null): number {
  return Number(`${units}e-${minorUnits(currency)}`);
}
