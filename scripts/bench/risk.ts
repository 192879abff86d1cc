/**
 * D57's risk, measured in-process on one database:
 * - claim filing (`fileClaim`, the route's whole domain work: the order's lock, the claim's
 *   statement and, with the risk, its statement in the same trip) with the risk against
 *   without it, in interleaved rounds of ROUND_S seconds at CONCURRENCY filings at once, in a
 *   store of CLAIMS claims spread over the last 180 days (SHOPPERS shoppers, a claimed value
 *   each) and a photo hash on each: filings per second (goal: with ≥ 0.9 of without), p50, p99;
 * - the reuse search at PHOTOS photos in the store: the risk statement of a claim with a photo
 *   (the whole statement: an upper bound of the band search it holds, eight band indexes for
 *   the photo's two hashes), its p95 over SEARCHES
 *   runs, and the EXPLAIN of one run.
 */
import { randomBytes } from 'node:crypto';
import { CompiledQuery, sql } from 'kysely';
import type { TClaimFile } from '../../contract/src/index';
import { createDb, type Db, prepared } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { fileClaim } from '../../server/src/domain/claims/filing';
import { riskStatement } from '../../server/src/domain/claims/risk/signals';
import { seed } from './claims';
import { benchInstallation } from './install';
import { benchDatabase, type Measured, percentile, printTable } from './lib';

const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 100_000);
const PHOTOS = CLAIMS;
const SHOPPERS = Math.floor(CLAIMS / 3);
const ROUND_S = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = 3;
const CONCURRENCY = 8;
const SEARCHES = 300;

/** A random 64-bit hash, as a photo's perceptual hash is stored. */
const randomHash = sql`('x' || lpad(to_hex((random() * 4294967295)::bigint), 8, '0')
  || lpad(to_hex((random() * 4294967295)::bigint), 8, '0'))::bit(64)::bigint`;

/** The store's claims spread over the last 180 days, each with a claimed value and a photo of random hashes (whole and centre). */
async function spread(db: Db, storeId: string): Promise<void> {
  await sql`
    update claims set created_at = now() - (random() * interval '180 days'),
      claimed_value = 10 + (random() * 90)::int, claimed_currency = 'USD'
    where store_id = ${storeId}`.execute(db);
  await sql`
    insert into files (id, store_id, purpose, type, size, sha256, width, height, link_id, storage_key,
      perceptual_hash, perceptual_hash_centre, claim_id, attached_at)
    select 'file_bench_' || c.n, ${storeId}, 'claim_evidence', 'image/jpeg', 1000, 'x', 640, 480,
      'bench-link-' || c.n, 'bench/' || c.n, ${randomHash}, ${randomHash}, c.id, now()
    from (select id, row_number() over () as n from claims where store_id = ${storeId} limit ${PHOTOS}) c`.execute(db);
  await sql`analyze claims, files`.execute(db);
}

const body = (n: number): TClaimFile => ({
  // A shopper of the store's, in turn: some have claimed before (repeat_claimer is computed for real).
  email: `shopper-${n % SHOPPERS}@example.com`,
  salesChannel: 'ONLINE',
  claimCategory: 'SHIPPING',
  fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1 }] }],
  resolution: { desiredMethod: 'RESHIP' },
});

/** CONCURRENCY filers for ROUND_S seconds: each filing's time in ms. */
async function round(db: Db, storeId: string, risk: boolean, counter: { n: number }): Promise<number[]> {
  const times: number[] = [];
  const until = performance.now() + ROUND_S * 1000;
  const actor = { storeId, clientId: null, userId: null };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        await fileClaim(db, actor, 'bench-1', body(counter.n++), undefined, { risk });
        times.push(performance.now() - started);
      }
    }),
  );
  return times;
}

function figures(name: string, times: number[], seconds: number): Measured {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    name,
    rps: times.length / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    requests: times.length,
    non2xx: 0,
    errors: 0,
  };
}

/** The risk statement of a claim with a photo, SEARCHES times: each run's time in ms, and one EXPLAIN. */
async function searches(db: Db, storeId: string): Promise<{ times: number[]; plan: string }> {
  const claim = (
    await sql<{ claimId: string }>`select claim_id from files where store_id = ${storeId} limit 1`.execute(db)
  ).rows[0]!.claimId;
  const times: number[] = [];
  for (let i = 0; i < SEARCHES; i++) {
    const started = performance.now();
    // As the sweep runs it: a prepared statement, planned once per connection.
    await prepared(riskStatement(claim)).execute(db);
    times.push(performance.now() - started);
  }
  const compiled = riskStatement(claim).compile(db);
  const plan = await db.executeQuery<Record<string, string>>(
    CompiledQuery.raw(`explain (analyze, costs off) ${compiled.sql}`, [...compiled.parameters]),
  );
  // The band search's part of the plan (the eight indexes) and the total.
  const lines = plan.rows.map((r) => String(Object.values(r)[0]));
  return { times, plan: lines.filter((l) => /files_phash|on files|Execution Time/.test(l)).join('\n') };
}

export async function benchRisk(): Promise<Measured[]> {
  const database = await benchDatabase();
  const db = createDb(database.url, { max: CONCURRENCY + 2 });
  try {
    await migrateToLatest(db);
    const installed = await benchInstallation(db, randomBytes(32), 'risk', ['claim:manage']);
    const storeId = installed.store.id;
    const seconds = await seed(db, storeId, { claims: CLAIMS, shoppers: SHOPPERS });
    await spread(db, storeId);
    process.stdout.write(`seeded ${CLAIMS} claims and ${PHOTOS} photos in ${seconds.toFixed(1)} s (and spread)\n`);
    const counter = { n: 0 };
    await round(db, storeId, true, counter); // warm-up, both statements prepared
    const all = { with: [] as number[], without: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      all.without.push(...(await round(db, storeId, false, counter)));
      all.with.push(...(await round(db, storeId, true, counter)));
    }
    const total = ROUNDS * ROUND_S;
    const rows = [
      figures('fileClaim without risk', all.without, total),
      figures('fileClaim with risk (D57)', all.with, total),
    ];
    const { times, plan } = await searches(db, storeId);
    const sorted = [...times].sort((a, b) => a - b);
    printTable(rows);
    process.stdout.write(`\nfiling with risk / without: ${(rows[1]!.rps / rows[0]!.rps).toFixed(2)} (goal ≥ 0.9)\n`);
    process.stdout.write(
      `risk statement with the reuse search at ${PHOTOS} photos in the store: p50 ${percentile(sorted, 0.5).toFixed(2)} ms, p95 ${percentile(sorted, 0.95).toFixed(2)} ms over ${SEARCHES} runs\n\n${plan}\n`,
    );
    return rows;
  } finally {
    await db.destroy();
    await database.stop();
  }
}
