import { minorUnits } from '@protection-service/contract';

/**
 * Exact decimal money arithmetic (D6, D38). A value is an integer `units` scaled by
 * 10^-`scale`, in BigInt: sums, products and divisions by powers of ten are exact, so an
 * amount that is exact in decimal (1.005, 2.675, 0.1 × 3) rounds as it would on paper.
 * Binary floats are only the input and output format: a JSON number is read through its
 * shortest decimal spelling (what the client wrote) and the rounded result is written back
 * the same way.
 */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

const TEN = 10n;
/** 10^0 ... 10^39, computed once: aligning two amounts needs one on every sum. */
const POWERS_OF_TEN = Array.from({ length: 40 }, (_, n) => TEN ** BigInt(n));
const pow10 = (n: number): bigint => POWERS_OF_TEN[n] ?? TEN ** BigInt(n);

/** A decimal spelled without an exponent: what JSON amounts and `numeric` text look like. */
const PLAIN = /^-?\d+(\.\d+)?$/;

/**
 * The decimal a JSON number spells (`1.005` → 1005 × 10^-3). Finite numbers only. A quote
 * reads two of them per line item, so the common spellings skip the general pattern: an
 * integer is its own units, a plain decimal its digits without the point.
 */
export function decimal(value: number | string): Decimal {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return { units: BigInt(value), scale: 0 };
  const text = typeof value === 'number' ? String(value) : value;
  if (PLAIN.test(text)) {
    const point = text.indexOf('.');
    if (point === -1) return { units: BigInt(text), scale: 0 };
    return { units: BigInt(text.slice(0, point) + text.slice(point + 1)), scale: text.length - point - 1 };
  }
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!match) throw new RangeError(`not a finite decimal: ${text}`);
  const [, sign, int, frac = '', exp = '0'] = match;
  let units = BigInt(`${int}${frac}`);
  let scale = frac.length - Number(exp);
  if (scale < 0) {
    units *= pow10(-scale);
    scale = 0;
  }
  return { units: sign === '-' ? -units : units, scale };
}

function aligned(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * pow10(scale - a.scale), b.units * pow10(scale - b.scale), scale];
}

export const ZERO: Decimal = { units: 0n, scale: 0 };

export function add(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = aligned(a, b);
  return { units: x + y, scale };
}

export function mul(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/** a / 10^n, exact. */
export function shift(a: Decimal, n: number): Decimal {
  return { units: a.units, scale: a.scale + n };
}

/** -1, 0 or 1 as a <, =, > b. */
export function compare(a: Decimal, b: Decimal): number {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Rounds half away from zero (half-up for the non-negative amounts of D6) to `digits` decimals. */
export function roundHalfUp(a: Decimal, digits: number): Decimal {
  if (a.scale <= digits) return a;
  const divisor = pow10(a.scale - digits);
  const negative = a.units < 0n;
  const abs = negative ? -a.units : a.units;
  let q = abs / divisor;
  if ((abs % divisor) * 2n >= divisor) q += 1n;
  return { units: negative ? -q : q, scale: digits };
}

/** The nearest JSON number; for a value rounded to minor units it prints as the decimal itself. */
export function toNumber(a: Decimal): number {
  const negative = a.units < 0n;
  const digits = (negative ? -a.units : a.units).toString().padStart(a.scale + 1, '0');
  const int = digits.slice(0, digits.length - a.scale);
  const frac = digits.slice(digits.length - a.scale);
  return Number(`${negative ? '-' : ''}${int}${frac ? `.${frac}` : ''}`);
}

/** Rounds an exact amount half-up to the currency's ISO 4217 minor units (D6; 2 when unknown). */
export function roundToCurrency(a: Decimal, currency?: string | null): Decimal {
  return roundHalfUp(a, minorUnits(currency));
}

/** `roundToCurrency` for a plain number: 1.005 USD → 1.01. */
export function roundMoney(amount: number, currency?: string | null): number {
  return toNumber(roundToCurrency(decimal(amount), currency));
}

/**
 * An exact non-negative rational amount `n / d` (d > 0), for arithmetic that must be exact in
 * decimal (D6: 1.005 rounds to 1.01, 0.1 × 3 is 0.3), such as the store credit of D26.
 */
interface Exact {
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
