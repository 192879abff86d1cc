import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { openEmbeddedPostgres } from '../../server/src/db/embedded';
import { freePort } from '../../server/src/free-port';
import { addCpuSince, type CpuMeters, cpuPerRequest, readCpu } from './cpu';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

/**
 * The targets of round `round` in the order they run: as given in an even round, reversed in
 * an odd one. Over an even number of rounds each target runs as often first as last, and a
 * machine that speeds up or slows down during the run (caches warming, the database's
 * background work after the rounds before) shifts every target alike: in a fixed order the
 * target run second in each round measured 3 to 12 % more than the same target run first
 * (`PUT /v1/orders/:id` against itself, and the baseline against itself, three runs each).
 */
export function inTurn<T>(targets: readonly T[], round: number): T[] {
  return round % 2 === 0 ? [...targets] : [...targets].reverse();
}

/** Rounds of an alternating comparison: even, so that `inTurn` runs each target first as often as last. */
export const ROUNDS = 4;

export interface Measured {
  name: string;
  /** Requests over all rounds (warm-up excluded), where counted. */
  requests?: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU per request of each process the target kept busy, in µs (`cpuPerRequest`), where measured. */
  cpu?: string;
  /** The WAL its rounds wrote per request, by record type (`BENCH_WAL=1`, `walPerRequest`). */
  wal?: string;
}

/**
 * Whether the benchmark's PostgreSQL makes each commit wait for the disk: `on` as in
 * production (fsync on: the figures include the WAL flush), `off` (fsync=off: commits never
 * wait, so what each write costs in CPU is what is measured). `BENCH_FSYNC=on|off|both`
 * (default both) chooses which of them the write benchmarks run on; with DATABASE_URL, only
 * that server's own setting.
 */
export type Fsync = 'on' | 'off';

function fsyncModes(): Fsync[] {
  const wanted = process.env.BENCH_FSYNC ?? 'both';
  if (wanted !== 'on' && wanted !== 'off' && wanted !== 'both') throw new Error('BENCH_FSYNC is on, off or both');
  return wanted === 'both' ? ['on', 'off'] : [wanted];
}

/** The rows of `run` on each PostgreSQL `fsyncModes` names, one after the other. */
export async function onEachFsync(run: (fsync: Fsync) => Promise<Measured[]>): Promise<Measured[]> {
  const rows: Measured[] = [];
  for (const fsync of fsyncModes()) rows.push(...(await run(fsync)));
  return rows;
}

function fsyncTitle(fsync: Fsync): string {
  return fsync === 'on'
    ? 'PostgreSQL with fsync on: every commit waits for the disk'
    : 'PostgreSQL with fsync=off: commits do not wait for the disk, CPU is the limit';
}

/**
 * `BENCH_PG_STATS=1`: the embedded PostgreSQL loads pg_stat_statements, and the benchmarks
 * that can print, after their rounds, the statements the service ran per request;
 * `BENCH_PG_STATS=all`: those run inside functions and triggers too, each apart (a function's
 * reads, a foreign key's check), beside the statement that ran them.
 */
const PG_STATS_ALL = process.env.BENCH_PG_STATS === 'all';
const PG_STATS = process.env.BENCH_PG_STATS === '1' || PG_STATS_ALL;

/**
 * `BENCH_PG_PLANS=<ms>`: the embedded PostgreSQL writes the plan it ran (EXPLAIN ANALYZE,
 * BUFFERS) of every statement that took longer, to `.tmp/pg-plans.log`: a plan chosen on stale
 * statistics shows there under load, where an EXPLAIN afterwards would not find it.
 */
const PG_PLANS_MS = process.env.BENCH_PG_PLANS;

/**
 * `BENCH_WAL=1`: the embedded PostgreSQL installs `pg_walinspect`, and `compare` counts the
 * WAL each target's measured rounds wrote, per request, by record type (`Btree/INSERT_LEAF`,
 * `Heap/LOCK`, ...): what a write costs the database in index entries, row versions and
 * row locks, a count that the machine's other work does not change as it changes times. A
 * round's WAL includes what the database wrote meanwhile for other reasons (autovacuum, the
 * service's own batches, such as its queued deliveries): part of what the target costs.
 */
const WAL = process.env.BENCH_WAL === '1';
const PG_PLANS_LOG = path.join(ROOT, '.tmp', 'pg-plans.log');

interface BenchDatabase {
  url: string;
  /** The server's fsync setting, as it reports it. */
  fsync: Fsync;
  stop(): Promise<void>;
}

/** A database for the benchmark: DATABASE_URL, or a throwaway embedded PostgreSQL. */
export async function benchDatabase({ fsync = 'on' }: { fsync?: Fsync } = {}): Promise<BenchDatabase> {
  if (process.env.DATABASE_URL) {
    const url = process.env.DATABASE_URL;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const shown = (await client.query<{ fsync: Fsync }>('show fsync')).rows[0]!.fsync;
    await client.end();
    return { url, fsync: shown, stop: async () => {} };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'protection-bench-'));
  await chmod(dir, 0o755);
  const settings: Record<string, string> = { fsync };
  if (PG_STATS) {
    settings.shared_preload_libraries = 'pg_stat_statements';
    // Planning counted apart: a statement planned on every call shows it here.
    settings['pg_stat_statements.track_planning'] = 'on';
    if (PG_STATS_ALL) settings['pg_stat_statements.track'] = 'all';
  }
  if (PG_PLANS_MS) {
    settings.shared_preload_libraries = [settings.shared_preload_libraries, 'auto_explain'].filter(Boolean).join(',');
    settings['auto_explain.log_min_duration'] = `${Number(PG_PLANS_MS)}ms`;
    settings['auto_explain.log_analyze'] = 'on';
    settings['auto_explain.log_buffers'] = 'on';
    // Statements run inside functions too: graphile-worker's add_jobs, the foreign key checks.
    settings['auto_explain.log_nested_statements'] = 'on';
    mkdirSync(path.dirname(PG_PLANS_LOG), { recursive: true });
  }
  const embedded = await openEmbeddedPostgres({
    dataDir: dir,
    settings,
    ...(PG_PLANS_MS ? { log: (line: string) => appendFileSync(PG_PLANS_LOG, `${line}\n`) } : {}),
  });
  if (PG_STATS || WAL) {
    const client = new pg.Client({ connectionString: embedded.url });
    await client.connect();
    if (PG_STATS) await client.query('create extension if not exists pg_stat_statements');
    if (WAL) await client.query('create extension if not exists pg_walinspect');
    await client.end();
  }
  return {
    url: embedded.url,
    fsync,
    async stop() {
      await embedded.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A database for one of the runs `fsyncModes` names, its fsync setting (with DATABASE_URL, that
 * server's own) printed as the heading of what is measured on it.
 */
export async function fsyncDatabase(fsync: Fsync): Promise<BenchDatabase> {
  const database = await benchDatabase({ fsync });
  process.stdout.write(`\n## ${fsyncTitle(database.fsync)}\n`);
  return database;
}

/** Forgets the statements counted so far (BENCH_PG_STATS=1; otherwise nothing). */
export async function resetStatements(url: string): Promise<void> {
  if (!PG_STATS) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('select pg_stat_statements_reset()');
  await client.end();
}

/**
 * Prints the statements run since `resetStatements`, the costliest first, each per request
 * of `requests` (calls, microseconds of execution per request and its mean per call, and the
 * planning per request, where tracked, with how many times it was planned: a statement planned
 * again and again has its cached plan invalidated, as by the analysis of a table it reads):
 * where the database's part of a request goes.
 */
export async function printStatements(url: string, requests: number, top = 12): Promise<void> {
  if (!PG_STATS) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{
    calls: string;
    plans: string;
    total: number;
    mean: number;
    plan: number;
    query: string;
  }>(
    `select calls, plans, total_exec_time as total, mean_exec_time as mean, total_plan_time as plan, query
     from pg_stat_statements where query not like '%pg_stat_statements%'
     order by total_exec_time desc limit $1`,
    [top],
  );
  await client.end();
  process.stdout.write(`statements per request (pg_stat_statements over ${requests} requests):\n`);
  for (const r of rows) {
    const perRequest = Number(r.calls) / requests;
    const query = r.query.replace(/\s+/g, ' ').slice(0, 140);
    process.stdout.write(
      `  ${perRequest.toFixed(2)} calls  ${((r.total * 1000) / requests).toFixed(0).padStart(5)} µs/req  ` +
        `mean ${(r.mean * 1000).toFixed(0).padStart(5)} µs  plan ${((r.plan * 1000) / requests).toFixed(0).padStart(4)} µs/req ` +
        `(${String(r.plans).padStart(5)} plans)  ${query}\n`,
    );
  }
}

/**
 * `BENCH_PROFILE=1 pnpm bench …`: every process the benchmark starts writes a V8 CPU profile
 * under `.tmp/profiles/<script>-<time>/` when it exits; `pnpm bench:profile` prints where its
 * time went. `BENCH_PROFILE=heap`: a profile of what it allocated instead (heap-sampler.ts).
 */
export const PROFILE_DIR = path.join(ROOT, '.tmp', 'profiles');
const profiling = process.env.BENCH_PROFILE === '1' ? 'cpu' : process.env.BENCH_PROFILE;

/**
 * The Node flags `pnpm start` runs the service with (package.json), given to every process a
 * benchmark starts, so the service is measured as it runs and its baselines on equal terms.
 */
const START_FLAGS: string[] = (
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(' ')
  .filter((arg) => /^--[a-z-]+=/.test(arg));

/** Starts a node process with the tsx loader and waits until it prints `ready` (or the given line). */
export async function startProcess(script: string, env: NodeJS.ProcessEnv, ready = 'ready'): Promise<ChildProcess> {
  const name = path.basename(script, '.ts');
  // One folder per process: the loader's thread writes a profile of its own beside the main one.
  const dir = path.join(PROFILE_DIR, `${name}-${Date.now()}`);
  const profile =
    profiling === 'cpu'
      ? ['--cpu-prof', `--cpu-prof-dir=${dir}`]
      : profiling === 'heap'
        ? ['--import', path.join(ROOT, 'scripts/bench/heap-sampler.ts')]
        : [];
  const child = spawn(
    process.execPath,
    [...START_FLAGS, '--conditions=source', '--import', 'tsx', ...profile, script],
    {
      cwd: ROOT,
      env: { ...process.env, ...env, ...(profiling === 'heap' ? { HEAP_PROFILE_DIR: dir } : {}) },
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      if (!out.includes(ready)) return;
      // From here on its output (access logs at LOG_LEVEL=info) is read and dropped.
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d) => process.stderr.write(d));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return child;
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export interface Target {
  name: string;
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /** Replace `[<id>]` in the URL and body with a new id on every request (autocannon). */
  idReplacement?: boolean;
  /** Concurrent connections (default BENCH_CONNECTIONS, 50). */
  connections?: number;
  /**
   * Requests come from this many client addresses in turn, named in X-Forwarded-For as a
   * reverse proxy on loopback would (TRUST_PROXY's default trusts it).
   */
  clientAddresses?: number;
  /** Each request's path from a counter, 0, 1, 2, ... (a fresh order per request, say). */
  path?: (n: number) => string;
}

/**
 * A setupRequest for autocannon giving each request its path (`path`) and cycling
 * X-Forwarded-For through `clientAddresses` distinct addresses; undefined when neither is asked.
 */
function setupRequest(t: Target) {
  if (!t.path && !t.clientAddresses) return undefined;
  let i = 0;
  return (req: { path?: string; headers?: Record<string, string> }) => {
    const n = i++;
    if (t.path) req.path = t.path(n);
    if (t.clientAddresses) {
      const k = n % t.clientAddresses;
      req.headers = { ...req.headers, 'x-forwarded-for': `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}` };
    }
    return req;
  };
}

/** What one round of a target measured. */
export interface Round {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** A baseline that is not an HTTP server (a plain database loop, say): it runs one round itself. */
interface LoopTarget {
  name: string;
  run(durationS: number): Promise<Round>;
}

/** WAL written, by record type (`Heap/INSERT`, ...): records and bytes. */
type WalCounts = Map<string, { count: number; bytes: number }>;

/**
 * With `BENCH_WAL=1`, a connection to the database at `url` that reads the WAL position and
 * adds up what was written between two positions (pg_walinspect); otherwise undefined.
 */
async function walReader(url: string | undefined) {
  if (!WAL || !url) return undefined;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    at: async () => (await client.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn,
    async add(into: WalCounts, from: string, to: string): Promise<void> {
      const { rows } = await client.query<{ type: string; count: string; bytes: string }>(
        `select "resource_manager/record_type" as type, count, combined_size as bytes
         from pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, true) where count > 0`,
        [from, to],
      );
      for (const r of rows) {
        const c = into.get(r.type) ?? { count: 0, bytes: 0 };
        c.count += Number(r.count);
        c.bytes += Number(r.bytes);
        into.set(r.type, c);
      }
    },
    end: () => client.end(),
  };
}

/** WAL per request: records and bytes in all, then the `top` record types by count. */
export function walPerRequest(counts: WalCounts, requests: number, top = 7): string {
  const all = [...counts.entries()].sort((a, b) => b[1].count - a[1].count);
  const records = all.reduce((n, [, c]) => n + c.count, 0);
  const bytes = all.reduce((n, [, c]) => n + c.bytes, 0);
  const each = all.slice(0, top).map(([type, c]) => `${type} ${(c.count / requests).toFixed(2)}`);
  return `${(records / requests).toFixed(1)} records, ${(bytes / requests).toFixed(0)} bytes: ${each.join(', ')}`;
}

/**
 * Loads each target with the same autocannon settings, in alternating rounds (`inTurn`), so a
 * change in the machine's background load during the run falls on all targets alike.
 * Requests/second is the total over all rounds; p50 and p99 are the worst round's.
 */
export async function compare(
  targets: (Target | LoopTarget)[],
  rounds = ROUNDS,
  meters: CpuMeters = {},
  seconds: { warmUp: number; total: number } = { warmUp: 2, total: DURATION_S },
  /** The database whose WAL each target's rounds wrote is counted (`BENCH_WAL=1`). */
  walUrl?: string,
): Promise<Measured[]> {
  const runRound = roundRunner(targets);
  for (const t of targets) await runRound(t, seconds.warmUp);
  const totals = targets.map((t) => ({
    name: t.name,
    requests: 0,
    seconds: 0,
    p50: 0,
    p99: 0,
    non2xx: 0,
    errors: 0,
    cpu: {} as Record<string, number>,
    wal: new Map() as WalCounts,
  }));
  const wal = await walReader(walUrl);
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [i, t] of inTurn([...targets.entries()], round)) {
        const total = totals[i]!;
        const cpuBefore = readCpu(meters);
        const walBefore = await wal?.at();
        const r = await runRound(t, Math.max(1, Math.round(seconds.total / rounds)));
        addCpuSince(total.cpu, cpuBefore, meters);
        if (wal && walBefore) await wal.add(total.wal, walBefore, await wal.at());
        total.requests += r.requests;
        total.seconds += r.seconds;
        total.p50 = Math.max(total.p50, r.p50);
        total.p99 = Math.max(total.p99, r.p99);
        total.non2xx += r.non2xx;
        total.errors += r.errors;
      }
    }
  } finally {
    await wal?.end();
  }
  return totals.map((t) => ({
    name: t.name,
    requests: t.requests,
    rps: t.requests / t.seconds,
    p50: t.p50,
    p99: t.p99,
    non2xx: t.non2xx,
    errors: t.errors,
    cpu: cpuPerRequest(t.cpu, t.requests),
    ...(wal ? { wal: walPerRequest(t.wal, t.requests) } : {}),
  }));
}

/** One round of a target: an autocannon run, or the target's own loop. */
function roundRunner(targets: readonly (Target | LoopTarget)[]) {
  // One per target for the whole run: a path counter goes on across rounds (fresh orders stay fresh).
  const setups = new Map(targets.map((t) => [t, 'run' in t ? undefined : setupRequest(t)]));
  return async (t: Target | LoopTarget, duration: number): Promise<Round> => {
    if ('run' in t) return t.run(duration);
    const setup = setups.get(t);
    const r = await autocannon({
      url: t.url,
      method: t.method ?? 'GET',
      headers: t.headers,
      body: t.body,
      connections: t.connections ?? CONNECTIONS,
      duration,
      idReplacement: t.idReplacement ?? false,
      ...(setup ? { requests: [{ setupRequest: setup as never }] } : {}),
    });
    return {
      requests: r.requests.total,
      seconds: r.duration,
      p50: r.latency.p50,
      p99: r.latency.p99,
      non2xx: r.non2xx,
      errors: r.errors,
    };
  };
}

export function printTable(rows: Measured[]): void {
  const withCpu = rows.some((r) => r.cpu);
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', ...(withCpu ? ['CPU µs/request'] : [])];
  const lines = rows.map((r) => [
    r.name,
    r.rps.toFixed(0),
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    String(r.non2xx),
    String(r.errors),
    ...(withCpu ? [r.cpu ?? ''] : []),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  process.stdout.write(`${fmt(header)}\n${lines.map(fmt).join('\n')}\n`);
  const withWal = rows.filter((r) => r.wal);
  if (withWal.length === 0) return;
  process.stdout.write('WAL per request (pg_walinspect, the measured rounds):\n');
  for (const r of withWal) process.stdout.write(`  ${r.name}: ${r.wal}\n`);
}

/**
 * The full service (scripts/bench/serve-app.ts) on a free port, over `databaseUrl`, keyed by
 * `secret`; `env` adds to its environment (BENCH_LOG_LEVEL=info: production logging).
 */
export async function startService(
  databaseUrl: string,
  secret: Buffer,
  env: NodeJS.ProcessEnv = {},
): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const child = await startProcess('scripts/bench/serve-app.ts', {
    PORT: String(port),
    BENCH_DATABASE_URL: databaseUrl,
    BENCH_SECRET_KEY: secret.toString('base64url'),
    ...env,
  });
  return { base: `http://127.0.0.1:${port}`, child };
}

/** The `p` quantile (0 to 1) of ascending `sorted` latencies; 0 when there are none. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
