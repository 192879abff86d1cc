/**
 * The claims export (D52) on a store of 100,000 claims, through the full service: the
 * server's resident memory while it streams all 100,000 rows against while it streams 1,000
 * (the first 1,000 by `createdAtMax`), sampled from /proc every 10 ms, as the peak over the
 * idle server and the ratio of the two; and the time of a whole export, p50 and p99. A flat
 * memory is a ratio near 1: rows are read 500 at a time, never the whole result.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import { createDb } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { seed } from './claims';
import { benchInstallation } from './install';
import { benchDatabase, percentile, startService, stopProcess } from './lib';

const CLAIMS = Number(process.env.BENCH_EXPORT_CLAIMS ?? 100_000);
const SMALL = 1_000;

const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
};

/** One export, timed, with the server's peak resident memory while it ran. */
async function once(url: string, token: string, pid: number): Promise<{ ms: number; peak: number; rows: number }> {
  let peak = rssMb(pid);
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 10);
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
  let rows = 0;
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
    rows += (decoder.decode(chunk, { stream: true }).match(/\r\n/g) ?? []).length;
  const ms = performance.now() - started;
  clearInterval(sampler);
  return { ms, peak: Math.max(peak, rssMb(pid)), rows: rows - 1 };
}

export async function benchExport(): Promise<void> {
  const database = await benchDatabase();
  const db = createDb(database.url);
  const secret = randomBytes(32);
  try {
    await migrateToLatest(db);
    const installed = await benchInstallation(db, secret, 'export', ['claim:read']);
    const storeId = installed.store.id;
    const seconds = await seed(db, storeId, { claims: CLAIMS, shoppers: Math.ceil(CLAIMS / 4) });
    process.stdout.write(`seeded ${CLAIMS} claims in ${seconds.toFixed(1)} s\n`);
    const cut = (
      await sql<{ at: string }>`
        select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at from claims
        where store_id = ${storeId} order by created_at, id offset ${SMALL - 1} limit 1`.execute(db)
    ).rows[0]!.at;
    const { base, child } = await startService(database.url, secret, { LOG_LEVEL: 'warn' });
    try {
      const token = installed.tokenFor(base);
      const pid = child.pid!;
      const all = `${base}/v1/claims/export`;
      const small = `${all}?createdAtMax=${encodeURIComponent(cut)}`;
      for (let i = 0; i < 3; i++) await once(small, token, pid); // warm-up
      const idle = rssMb(pid);
      const runs = { small: [] as Awaited<ReturnType<typeof once>>[], all: [] as Awaited<ReturnType<typeof once>>[] };
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 10; i++) runs.small.push(await once(small, token, pid));
        runs.all.push(await once(all, token, pid));
      }
      const line = (name: string, r: Awaited<ReturnType<typeof once>>[]) => {
        const ms = r.map((x) => x.ms).sort((a, b) => a - b);
        const peak = Math.max(...r.map((x) => x.peak));
        return {
          name,
          rows: r[0]!.rows,
          p50: percentile(ms, 0.5),
          p99: percentile(ms, 0.99),
          peak,
          growth: peak - idle,
        };
      };
      const rows = [line(`${SMALL} rows`, runs.small), line(`${CLAIMS} rows`, runs.all)];
      process.stdout.write(`server RSS idle after warm-up: ${idle.toFixed(1)} MB\n`);
      for (const r of rows) {
        process.stdout.write(
          `${r.name.padEnd(14)} rows ${r.rows}  p50 ${r.p50.toFixed(0)} ms  p99 ${r.p99.toFixed(0)} ms  ` +
            `peak RSS ${r.peak.toFixed(1)} MB (+${r.growth.toFixed(1)} MB over idle)\n`,
        );
      }
      process.stdout.write(`peak RSS ratio ${CLAIMS} / ${SMALL} rows: ${(rows[1]!.peak / rows[0]!.peak).toFixed(2)}\n`);
    } finally {
      await stopProcess(child);
    }
  } finally {
    await db.destroy();
    await database.stop();
  }
}
