/**
 * D57's risk, measured in-process on one database:
 * - claim filing (`fileClaim`, the route's whole domain work: the order's lock and the claim's
 *   statement, which with the risk computes it too) with the risk against without it, in
 *   interleaved rounds of ROUND_S seconds at CONCURRENCY filings at once (BENCH_RISK_CONCURRENCY,
 *   default 8), on each PostgreSQL BENCH_FSYNC names (lib.ts), in a store of CLAIMS
 *   claims spread over the last 180 days (SHOPPERS shoppers, a claimed value each), a photo
 *   hash, a claim/created event and an e-mail on each: filings per second (goal: with ≥ 0.9
 *   of without), p50, p99, and the CPU of each filing, this process's and PostgreSQL's
 *   (BENCH_PG_STATS=1: the statements of both, and how often each was planned);
 *   for four kinds of filing (`Kind`): naming no item (a shopper's fourth claim or later, or
 *   first), naming a priced item (amount_outlier reads the store's latest values, up to 200),
 *   with a photo (photo_reused reads the matches its upload found);
 * - the reuse search an upload runs, at PHOTOS photos in the store (eight band indexes for the
 *   photo's two hashes, its pairs kept): its p50 and p95 over SEARCHES photos, and the EXPLAIN
 *   of one run.
 */
import { createHash, randomBytes } from 'node:crypto';
import { CompiledQuery, sql } from 'kysely';
import type { TClaimFile } from '../../contract/src/index';
import { createDb, type Db, prepared } from '../../server/src/db/database';
import { migrateToLatest } from '../../server/src/db/migrate';
import { fileClaim } from '../../server/src/domain/claims/filing';
import { RISK } from '../../server/src/domain/claims/risk/signals';
import { matchStatement } from '../../server/src/domain/files/photo-matches';
import { seed } from './claims';
import { addCpuSince, type CpuMeters, cpuPerRequest, ownCpu, postgresCpu, readCpu } from './cpu';
import { benchInstallation } from './install';
import {
  type Fsync,
  fsyncDatabase,
  inTurn,
  type Measured,
  onEachFsync,
  percentile,
  printStatements,
  printTable,
  ROUNDS,
  resetStatements,
} from './lib';

const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 100_000);
const PHOTOS = CLAIMS;
const SHOPPERS = Math.floor(CLAIMS / 3);
// Not a multiple of the embedded database's autovacuum naptime (5 s, server/src/db/embedded.ts):
// rounds of 5 s met its wake-ups in the same phase, so the plans its analyses invalidated were
// made again in the rounds with the risk (103 to 132 plans in 40 s against 24 to 48 without);
// at 7 s the two sides are planned alike (78 and 86).
const ROUND_S = Number(process.env.BENCH_DURATION ?? 7);
// Eight at once keep both cores busy; one at a time shows what a filing costs uncontended.
const CONCURRENCY = Number(process.env.BENCH_RISK_CONCURRENCY ?? 8);
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
  // Every order but bench-1 (and bench-2, seeded so) has a priced line item, for the priced filings.
  await sql`update orders set line_items_known = true where store_id = ${storeId} and id not in ('ord_bench_1', 'ord_bench_2')`.execute(
    db,
  );
  await sql`
    insert into order_line_items (order_id, source_item_id, position, quantity, price)
    select id, 'item-1', 0, 1000000000, 50 from orders
    where store_id = ${storeId} and id not in ('ord_bench_1', 'ord_bench_2')`.execute(db);
  // A settled store: the seeded claims say what their own filings would have said of their
  // shopper (each of a shopper's three claims has two others within 180 days: repeat_claimer).
  // Unsettled, every filing would queue its shopper's earlier claims for the sweep, a cost a
  // store pays once, at the claim that crosses the threshold, not at every filing (D57).
  await sql`
    update claims c set risk_level = 'medium', risk_signals = jsonb_build_array(jsonb_build_object(
      'code', 'repeat_claimer', 'detail', 'seeded', 'relatedClaimIds', '[]'::jsonb))
    from (select lower(author_email) as email from claims where store_id = ${storeId}
      group by 1 having count(*) > ${RISK.repeatOthers}) r
    where c.store_id = ${storeId} and lower(c.author_email) = r.email`.execute(db);
  // The outbox tables as a running service has them: the claim/created event and the
  // confirmation e-mail of each earlier claim. Every store's events and e-mails share these
  // tables; grown from empty by the rounds alone, autovacuum analysed them every second or two,
  // and each analysis made every connection plan every statement that writes them again (the
  // filing with the risk 173 times in 40 s of rounds, at 2.8 ms a plan, against 91 with them).
  await sql`
    insert into webhook_events (id, store_id, topic, body, created_at)
    select 'evt_bench_' || c.id, ${storeId}, 'claim/created', json_build_object('claimId', c.id), c.created_at
    from claims c where c.store_id = ${storeId}`.execute(db);
  await sql`
    insert into mail_messages (id, store_id, claim_id, kind, recipient, status, sent_at, created_at, updated_at)
    select 'mail_bench_' || c.id, ${storeId}, c.id, 'claim_filed', c.author_email, 'sent', c.created_at, c.created_at, c.created_at
    from claims c where c.store_id = ${storeId}`.execute(db);
  // Vacuumed, not only analysed: otherwise autovacuum takes the 100,000 updated rows during the
  // rounds, and its CPU falls into whichever rounds it meets.
  await sql`vacuum analyze claims, files, orders, order_line_items, webhook_events, mail_messages`.execute(db);
}

/**
 * What a filing names: no item (`plain`, by a shopper of three claims before; `first`, by a
 * shopper with none, as most claims of a store are: repeat_claimer's read finds nothing), an
 * order's priced item (`priced`: the claim has a claimed value and amount_outlier reads the
 * store's latest values), or a photo (`photo`: a fresh file of the store's, attached in the
 * filing's trip, searched for reuse).
 */
type Kind = 'plain' | 'first' | 'priced' | 'photo';
const KINDS: Record<Kind, string> = {
  plain: '',
  first: ", a shopper's first claim",
  priced: ', naming a priced item',
  photo: ', with a photo',
};
/** How each kind's ratio, with the risk against without, is printed. */
const RATIO_WORDS: Record<Kind, string> = {
  plain: 'filing with risk / without (goal ≥ 0.9)',
  first: "a shopper's first claim (repeat_claimer finds no other)",
  priced: "naming a priced item (amount_outlier reads the store's latest values)",
  photo: 'with a photo (photo_reused reads the matches its upload found)',
};
/** The kinds to run (BENCH_RISK_KINDS, comma-separated; default all). */
const KINDS_RUN = (process.env.BENCH_RISK_KINDS ?? Object.keys(KINDS).join(',')).split(',');

/** Unattached photos, one for each photo filing: enough for every round at 2,000 filings a second. */
const FREE_PHOTOS = Math.ceil(ROUND_S * (2 * ROUNDS + 1) * 2000);
/** The id of free photo `n`, as the service names files: `n` in 24 base32 letters (its digits 0-9 as w-z, 2-7). */
const freePhotoId = (n: number) =>
  `file_${n
    .toString(32)
    .padStart(24, '0')
    .replace(/[0-9]/g, (d) => 'wxyz234567'[Number(d)]!)}`;

/** The link of free photo `n`: the 64 hex digits of its file's `link_id`, then 22 characters of token, as a file's URL ends. */
const freePhotoLink = (n: number) => createHash('sha256').update(freePhotoId(n)).digest('hex');
const photoUrl = (n: number) => `https://bench.example/files/${freePhotoId(n)}/${freePhotoLink(n)}${'A'.repeat(22)}`;

/**
 * The free photos, with random hashes (whole and centre), each at the link the filing names.
 * Written without the reuse search their uploads would run: two random 64-bit hashes are
 * within 6 bits once in about 2 × 10^11 pairs, so it would keep no pair.
 */
async function freePhotos(db: Db, storeId: string): Promise<void> {
  const n = Array.from({ length: FREE_PHOTOS }, (_, i) => i);
  await sql`
    insert into files (id, store_id, purpose, type, size, sha256, width, height, link_id, storage_key,
      perceptual_hash, perceptual_hash_centre)
    select f.id, ${storeId}, 'claim_evidence', 'image/jpeg', 1000, 'x', 640, 480, f.link,
      'bench/' || f.id, ${randomHash}, ${randomHash}
    from unnest(${n.map(freePhotoId)}::text[], ${n.map(freePhotoLink)}::text[]) f (id, link)`.execute(db);
}

const body = (n: number, kind: Kind, risk: boolean): TClaimFile => ({
  // A shopper of the store's, in turn, each of three claims before (repeat_claimer is computed
  // for real): with the risk the even ones, without it the odd ones. A claim written without its
  // risk, which no store has, would otherwise be seen by a later filing of its shopper as
  // lacking repeat_claimer, and queued for the sweep at the cost of the rounds with the risk.
  // Both sides alike: with a fresh e-mail on each filing without the risk, its index took
  // entries in one place, and those of the shoppers' e-mails anywhere, which cost the rounds
  // with the risk about 100 µs of PostgreSQL a filing with no signal computed at all. A first
  // claim's e-mail is new on both sides.
  email:
    kind === 'first'
      ? `first-${risk ? 'with' : 'without'}-${n}@example.com`
      : `shopper-${2 * (n % Math.floor(SHOPPERS / 2)) + (risk ? 0 : 1)}@example.com`,
  salesChannel: 'ONLINE',
  claimCategory: 'SHIPPING',
  fulfillmentIssues: [
    {
      issues: [
        {
          issueType: 'DAMAGED',
          quantity: 1,
          ...(kind === 'priced' ? { sourceItemId: 'item-1' } : {}),
          ...(kind === 'photo' ? { images: [photoUrl(n)] } : {}),
        },
      ],
    },
  ],
  resolution: { desiredMethod: 'RESHIP' },
});
/**
 * The order a filing goes to: bench-3 ... bench-1000 in turn (a priced line item each), as a
 * store's claims come on different orders. Not all on one: the concurrent filings' locks on
 * one order row would make a multixact at each filing, larger the longer each holds it, a cost
 * of the bench's shape that no store's filings pay.
 */
const orderOf = (n: number) => `bench-${3 + (n % 998)}`;

/** CONCURRENCY filers for ROUND_S seconds: each filing's time in ms. */
async function round(
  db: Db,
  storeId: string,
  risk: boolean,
  counter: { n: number },
  kind: Kind,
  cpu?: { meters: CpuMeters; total: Record<string, number> },
): Promise<number[]> {
  const times: number[] = [];
  const before = cpu && readCpu(cpu.meters);
  const until = performance.now() + ROUND_S * 1000;
  const actor = { storeId, clientId: null, userId: null };
  const filed: string[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        const n = counter.n++;
        filed.push(await fileClaim(db, actor, orderOf(n), body(n, kind, risk), undefined, { risk }));
        times.push(performance.now() - started);
      }
    }),
  );
  if (cpu && before) addCpuSince(cpu.total, before, cpu.meters);
  await settleShoppers(db, filed);
  return times;
}

/**
 * After a round, outside its time: the claims it filed go to e-mails of their own, so that
 * the shoppers of the next rounds still have three claims before, as the filings say. Kept,
 * each shopper's claims grew with every round (at 20,000 claims, past twenty by the last), and
 * the risk's read of them, its sort and its signal's related claims with them.
 */
async function settleShoppers(db: Db, ids: string[]): Promise<void> {
  await sql`update claims set author_email = 'filed-' || id || '@example.com' where id = any(${ids}::text[])`.execute(
    db,
  );
  // Vacuumed here, so that autovacuum does not take the updated rows during a round.
  await sql`vacuum claims`.execute(db);
}

function figures(name: string, times: number[], seconds: number, cpu: Record<string, number>): Measured {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    cpu: cpuPerRequest(cpu, times.length),
    name,
    rps: times.length / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    requests: times.length,
    non2xx: 0,
    errors: 0,
  };
}

/**
 * The reuse search of SEARCHES of the store's photos, one after another, as an upload runs it
 * for the photo it stores (files/photo-matches.ts: a prepared statement, its pairs kept): each
 * run's time in ms, and the EXPLAIN of one.
 */
async function searches(db: Db, storeId: string): Promise<{ times: number[]; plan: string }> {
  const photos = await sql<{ id: string }>`
    select id from files where store_id = ${storeId} and perceptual_hash is not null order by id limit ${SEARCHES}`.execute(
    db,
  );
  const times: number[] = [];
  for (const { id } of photos.rows) {
    const started = performance.now();
    await prepared(matchStatement(id)).execute(db);
    times.push(performance.now() - started);
  }
  const compiled = matchStatement(photos.rows[0]!.id).compile(db);
  const plan = await db.executeQuery<Record<string, string>>(
    CompiledQuery.raw(`explain (analyze, costs off) ${compiled.sql}`, [...compiled.parameters]),
  );
  // The band search's part of the plan (the eight indexes) and the total.
  const lines = plan.rows.map((r) => String(Object.values(r)[0]));
  return { times, plan: lines.filter((l) => /files_phash|on files|Execution Time/.test(l)).join('\n') };
}

/** Filings of `kind` with the risk against without, in interleaved rounds after a warm-up: the two rows. */
async function filings(db: Db, url: string, storeId: string, kind: Kind, counter: { n: number }): Promise<Measured[]> {
  await round(db, storeId, true, counter, kind); // warm-up, both statements prepared
  await resetStatements(url);
  const all = { with: [] as number[], without: [] as number[] };
  // The filings' CPU, this process's (the service's domain work) and the database's.
  const meters = { service: ownCpu, postgres: await postgresCpu(url) };
  const cpu = { with: { meters, total: {} }, without: { meters, total: {} } };
  // Each pair of rounds' ratio too: the spread between them says how far one run's figure is to be trusted.
  const pairs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const times = { with: [] as number[], without: [] as number[] };
    for (const side of inTurn(['without', 'with'] as const, r)) {
      times[side] = await round(db, storeId, side === 'with', counter, kind, cpu[side]);
    }
    const { without, with: withRisk } = times;
    all.without.push(...without);
    all.with.push(...withRisk);
    pairs.push(withRisk.length / without.length);
  }
  process.stdout.write(`${kind}: with / without by pair of rounds: ${pairs.map((p) => p.toFixed(2)).join(', ')}\n`);
  const total = ROUNDS * ROUND_S;
  await printStatements(url, all.with.length + all.without.length, 24);
  return [
    figures(`fileClaim without risk${KINDS[kind]}`, all.without, total, cpu.without.total),
    figures(`fileClaim with risk (D57)${KINDS[kind]}`, all.with, total, cpu.with.total),
  ];
}

export function benchRisk(): Promise<Measured[]> {
  return onEachFsync(benchRiskOn);
}

async function benchRiskOn(fsync: Fsync): Promise<Measured[]> {
  const database = await fsyncDatabase(fsync);
  const db = createDb(database.url, { max: CONCURRENCY + 2 });
  try {
    await migrateToLatest(db);
    const installed = await benchInstallation(db, randomBytes(32), 'risk', ['claim:manage']);
    const storeId = installed.store.id;
    const seconds = await seed(db, storeId, { claims: CLAIMS, shoppers: SHOPPERS });
    await spread(db, storeId);
    process.stdout.write(`seeded ${CLAIMS} claims and ${PHOTOS} photos in ${seconds.toFixed(1)} s (and spread)\n`);
    // At PHOTOS photos, before the free ones are added.
    const { times, plan } = await searches(db, storeId);
    await freePhotos(db, storeId);
    const rows: Measured[] = [];
    const ratios: string[] = [];
    for (const kind of Object.keys(KINDS) as Kind[]) {
      if (!KINDS_RUN.includes(kind)) continue;
      // A count for each kind's filings: each photo filing takes a fresh photo, FREE_PHOTOS
      // of them for the photo filings alone (the kinds before them once used them up).
      const [without, withRisk] = await filings(db, database.url, storeId, kind, { n: 0 });
      rows.push(without!, withRisk!);
      ratios.push(`${RATIO_WORDS[kind]}: ${(withRisk!.rps / without!.rps).toFixed(2)}`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    printTable(rows);
    process.stdout.write(`\n${ratios.join('\n')}\n`);
    process.stdout.write(
      `the reuse search of an upload at ${PHOTOS} photos in the store: p50 ${percentile(sorted, 0.5).toFixed(2)} ms, p95 ${percentile(sorted, 0.95).toFixed(2)} ms over ${SEARCHES} runs\n\n${plan}\n`,
    );
    return rows;
  } finally {
    await db.destroy();
    await database.stop();
  }
}
