import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids';

/** Resource ids (D5: at least 120 random bits, never reused). */
describe('newId', () => {
  it('is the prefix and 120 bits in lower-case base32, decodable by a standard decoder', () => {
    for (let i = 0; i < 1000; i++) {
      const id = newId('ord');
      expect(id).toMatch(/^ord_[a-z2-7]{24}$/);
      expect(decodeBase32IgnorePadding(id.slice(4).toUpperCase())).toHaveLength(15);
    }
  });

  it('never repeats, across refills of its random pool', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => newId('x')));
    expect(ids.size).toBe(20_000);
  });

  it('uses every character of the alphabet about evenly (the bits are not biased)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) for (const c of newId('x').slice(2)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(32);
    const expected = (20_000 * 24) / 32;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.05);
  });
});
