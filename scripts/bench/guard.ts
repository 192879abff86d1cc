/**
 * `pnpm bench guard`: the short form of the write rows for CI, under a minute. Each guarded
 * row (the order write against node:http + one upsert, the subscribed write against the
 * unsubscribed one, the quote against pricing by hand, claim filing against a bare
 * transaction) runs against its baseline in alternating rounds of one run, on PostgreSQL
 * without fsync; it fails when a row's ratio lost more than a third of the ratio committed
 * for this machine class (figures.json). Ratios, not rates: a busy or a slower machine slows
 * a row and its baseline alike.
 */
import os from 'node:os';
import { committedFigures, GUARDED_ROWS, type GuardedRow, LOSS, type Ratios } from './figures';
import { benchWritesOn } from './writes';

/**
 * The short rows, on a database of their own, with orders for claims enough for each side's
 * three seconds at 5,000 filings a second (a baseline that ran out would answer failures):
 * a second's warm-up, then two rounds of a second, the second round in the other order.
 */
const shortRun = async (rows: GuardedRow[]) =>
  (await benchWritesOn({ fsync: 'off', seconds: { warmUp: 1, total: 2 }, rounds: 2, freshOrders: 20_000, rows }))
    .ratios;

/** The least ratio a row may measure: its committed one less a third (none committed: nothing passes). */
export const floorOf = (committed: Ratios, row: GuardedRow): number =>
  (committed[row] ?? Number.POSITIVE_INFINITY) * (1 - LOSS);

/** The rows whose ratio in this run is below their floor (not measured counts as below). */
export const rowsBelow = (committed: Ratios, ratios: Ratios, rows: readonly GuardedRow[] = GUARDED_ROWS) =>
  rows.filter((row) => !((ratios[row] ?? 0) >= floorOf(committed, row)));

/** One guarded row's verdict: its ratio now, the committed one, its floor. */
export interface RowVerdict {
  row: GuardedRow;
  now: number | undefined;
  was: number | undefined;
  floor: number;
  ok: boolean;
}

/**
 * The guard's verdict on a run: `first` the ratios of the run, `again` those of the rows that
 * were below their floor and ran once more (the better of the two counts). A row lost when it
 * is below its floor both times.
 */
export function guardVerdict(
  committed: Ratios,
  first: Ratios,
  again: Ratios = {},
): { rows: RowVerdict[]; lost: number } {
  const rows = GUARDED_ROWS.map((row): RowVerdict => {
    const measured = [first[row], again[row]].filter((r): r is number => r !== undefined);
    const now = measured.length > 0 ? Math.max(...measured) : undefined;
    const floor = floorOf(committed, row);
    return { row, now, was: committed[row], floor, ok: now !== undefined && now >= floor };
  });
  return { rows, lost: rows.filter((r) => !r.ok).length };
}

export async function benchGuard(): Promise<void> {
  const started = Date.now();
  const figures = committedFigures();
  const committed = figures.ratios['fsync off'];
  const first = await shortRun([...GUARDED_ROWS]);
  // A row below its floor runs once more, alone: a burst of the machine's other work during
  // its few seconds is not a regression, and a regression loses both times.
  const below = rowsBelow(committed, first);
  let second: Ratios = {};
  if (below.length > 0) {
    process.stdout.write(`\nonce more: ${below.join(', ')}\n`);
    second = await shortRun(below);
  }
  const { rows, lost } = guardVerdict(committed, first, second);
  process.stdout.write(`\nagainst the figures of ${figures.machine} (${figures.measured}):\n`);
  for (const { row, now, was, floor, ok } of rows)
    process.stdout.write(
      `  ${row.padEnd(10)} ${now?.toFixed(2) ?? 'not measured'} (committed ${was?.toFixed(2) ?? 'none'}, ` +
        `at least ${floor.toFixed(2)}) ${ok ? 'ok' : 'LOST'}\n`,
    );
  const load = os.loadavg()[0]!.toFixed(2);
  process.stdout.write(
    `${lost} of ${GUARDED_ROWS.length} rows lost; ${((Date.now() - started) / 1000).toFixed(0)} s, load ${load}\n`,
  );
  if (lost > 0) process.exitCode = 1;
}
