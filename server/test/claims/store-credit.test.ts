import { describe, expect, it } from 'vitest';
import { storeCredit, storeCreditCode } from '../../src/domain/claims/store-credit';
import { exact, fromMinorUnits, toMinorUnits } from '../../src/lib/money';

/** D26 store-credit arithmetic and the D6 exact-decimal rounding under it (no database). */
describe('exact decimal money (D6)', () => {
  it('reads numbers as the decimals they print as, exponents included', () => {
    expect(exact(1.005)).toEqual({ n: 1005n, d: 1000n });
    expect(exact('2.675')).toEqual({ n: 2675n, d: 1000n });
    expect(exact(1e-7)).toEqual({ n: 1n, d: 10_000_000n });
    expect(exact(1e21)).toEqual({ n: 10n ** 21n, d: 1n });
    expect(exact(0)).toEqual({ n: 0n, d: 1n });
    expect(() => exact(-1)).toThrow(RangeError);
    expect(() => exact(Number.NaN)).toThrow(RangeError);
  });

  it('rounds half-up once, in the currency minor units', () => {
    const round = (v: number, c: string) => fromMinorUnits(toMinorUnits(exact(v), c), c);
    expect(round(1.005, 'USD')).toBe(1.01);
    expect(round(2.675, 'USD')).toBe(2.68);
    expect(round(1.004999, 'USD')).toBe(1);
    expect(round(0.5, 'JPY')).toBe(1);
    expect(round(1.0005, 'KWD')).toBe(1.001);
    expect(round(999_999_999_999.995, 'USD')).toBe(1_000_000_000_000);
  });
});

describe('storeCredit (D26)', () => {
  const settings = (bonus: number, type: 'flat' | 'percentage', max = 100) => ({
    storeCreditBonus: bonus,
    storeCreditBonusType: type,
    storeCreditMaxPercentage: max,
    storeCreditType: 'DISCOUNT_CODE' as const,
  });

  it('flat: the bonus amount, capped at creditValue × max / 100', () => {
    expect(storeCredit(40, 'USD', settings(5, 'flat'))).toMatchObject({
      creditValue: 40,
      bonusValue: 5,
      totalValue: 45,
    });
    expect(storeCredit(40, 'USD', settings(5, 'flat', 10))).toMatchObject({ bonusValue: 4, totalValue: 44 });
    expect(storeCredit(40, 'USD', settings(5, 'flat', 0))).toMatchObject({ bonusValue: 0, totalValue: 40 });
  });

  it('percentage: creditValue × bonus / 100, exact where binary floats are not', () => {
    // 0.1 × 3 = 0.3 on paper; in floats 0.30000000000000004.
    expect(storeCredit(3, 'USD', settings(10, 'percentage'))).toMatchObject({ bonusValue: 0.3, totalValue: 3.3 });
    // 1.15 × 50 / 100 = 0.575 → 0.58 (floats: 0.5749999 → 0.57).
    expect(storeCredit(1.15, 'USD', settings(50, 'percentage'))).toMatchObject({ bonusValue: 0.58, totalValue: 1.73 });
    // 8.345 % of 100.01 = 8.3458345 → 8.35; capped at 5 % = 5.0005 → 5.
    expect(storeCredit(100.01, 'USD', settings(8.345, 'percentage'))).toMatchObject({ bonusValue: 8.35 });
    expect(storeCredit(100.01, 'USD', settings(8.345, 'percentage', 5))).toMatchObject({ bonusValue: 5 });
  });

  it('reports the bonus kind and the credit type from the settings', () => {
    expect(storeCredit(10, 'EUR', settings(0, 'percentage'))).toMatchObject({ bonusType: 'NONE', bonus: 0 });
    expect(storeCredit(10, 'EUR', settings(2, 'flat'))).toMatchObject({
      bonusType: 'FLAT',
      creditType: 'DISCOUNT_CODE',
      currency: 'EUR',
    });
  });

  it('codes carry 80 random bits and do not repeat', () => {
    const codes = new Set(Array.from({ length: 10_000 }, storeCreditCode));
    expect(codes.size).toBe(10_000);
    for (const code of [...codes].slice(0, 10)) expect(code).toMatch(/^SC-[A-Z2-7]{16}$/);
  });
});
