import { describe, expect, it } from 'vitest';
import { GUARDED_ROWS, type Ratios } from '../bench/figures';
import { guardVerdict, rowsBelow } from '../bench/guard';

/** Each row's ratio: its requests/second over its baseline's in the same run. */
const ratio = (row: number, baseline: number) => row / baseline;

const COMMITTED: Ratios = { order: 0.6, subscriber: 0.9, quote: 0.45, claim: 0.4 };
/** Every row as it was committed. */
const AS_COMMITTED: Ratios = { ...COMMITTED };

/**
 * `pnpm bench guard` (scripts/bench/guard.ts) fails CI when a write row's ratio to its
 * baseline in the same run lost more than a third of its committed ratio, and only then.
 */
describe('bench guard verdict', () => {
  it('passes every row at its committed ratio, or a third less', () => {
    expect(guardVerdict(COMMITTED, AS_COMMITTED).lost).toBe(0);
    // The order write at 400 req/s against a baseline of 1,000: 0.40, just above 0.6 less a third.
    const verdict = guardVerdict(COMMITTED, { ...AS_COMMITTED, order: ratio(401, 1_000) });
    expect(verdict.lost).toBe(0);
    expect(verdict.rows.find((r) => r.row === 'order')).toMatchObject({ ok: true, was: 0.6 });
  });

  it('fails a row that lost more than a third against its baseline, in both runs', () => {
    // 390 req/s against the baseline's 1,000 in the same run: 0.39 < 0.6 × 2/3.
    const first = { ...AS_COMMITTED, order: ratio(390, 1_000) };
    expect(rowsBelow(COMMITTED, first)).toEqual(['order']);
    const verdict = guardVerdict(COMMITTED, first, { order: ratio(350, 1_000) });
    expect(verdict.lost).toBe(1);
    const order = verdict.rows.find((r) => r.row === 'order')!;
    expect(order).toMatchObject({ ok: false, now: 0.39 });
    expect(order.floor).toBeCloseTo(0.4, 10);
    expect(verdict.rows.filter((r) => r.ok).map((r) => r.row)).toEqual(GUARDED_ROWS.filter((r) => r !== 'order'));
  });

  it('passes a row that lost in the first run and not in the second', () => {
    const first = { ...AS_COMMITTED, claim: ratio(200, 1_000) };
    expect(rowsBelow(COMMITTED, first)).toEqual(['claim']);
    expect(guardVerdict(COMMITTED, first, { claim: ratio(380, 1_000) }).lost).toBe(0);
  });

  it('fails a row that was not measured, or has no committed figure', () => {
    const { quote: _, ...withoutQuote } = AS_COMMITTED;
    expect(guardVerdict(COMMITTED, withoutQuote).rows.find((r) => r.row === 'quote')?.ok).toBe(false);
    const { claim: __, ...uncommitted } = COMMITTED;
    expect(guardVerdict(uncommitted, AS_COMMITTED).lost).toBe(1);
  });
});
