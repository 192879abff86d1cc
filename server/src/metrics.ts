import { createServer, type Server } from 'node:http';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type Db, poolOf } from './db/database';
import type { RateLimits } from './http/rate-limit';

/** Route label of a request that matched no contract or operational route (bounded cardinality). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Which D4 limit refused a request. */
/** A D4 limit, or the per-link limit of the claim page's form (D41). */
type LimitName = keyof RateLimits | 'claimMessages' | 'claimForm';

/**
 * The figures one server process keeps for Prometheus. Routes are labelled with the
 * contract's path templates (`/v1/orders/:sourceOrderId`), never raw paths, so the number of
 * series stays bounded whatever clients send.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: RequestFigures;
  private readonly refusals: Counter<'limit'>;
  private readonly publicCache: TalliedCounter;
  private readonly apiVersions: TalliedCounter;
  private readonly replays: Counter<'route'>;
  private readonly attempts: Histogram<'outcome'>;
  private readonly mailAttempts: Histogram<'outcome'>;
  private readonly jobs: Histogram<'task' | 'outcome'>;

  /** `processFigures`: CPU, memory, event loop and GC figures of this process (once per process). */
  constructor(db: Db, { processFigures = false }: { processFigures?: boolean } = {}) {
    const registers = [this.registry];
    this.requests = new RequestFigures(this.registry);
    this.refusals = new Counter({
      name: 'rate_limit_refusals_total',
      help: 'Requests refused with 429 (D4), by limit',
      labelNames: ['limit'],
      registers,
    });
    this.publicCache = new TalliedCounter(
      this.registry,
      'public_cache_requests_total',
      'Public reads looked up in the in-process cache, by result (hit or miss)',
      'result',
    );
    this.apiVersions = new TalliedCounter(
      this.registry,
      'api_version_requests_total',
      'Answers of versioned routes (app access token, errors included), by the dated API version that served them (D44)',
      'version',
    );
    this.replays = new Counter({
      name: 'idempotent_replays_total',
      help: 'Requests answered with the stored answer of their Idempotency-Key (D33), by route template',
      labelNames: ['route'],
      registers,
    });
    this.attempts = new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Webhook delivery attempts by this process, by outcome (delivered: a 2xx; rejected: another answer; unreachable: none, a timeout or a refused address), and how long each took',
      labelNames: ['outcome'],
      buckets: ATTEMPT_BUCKETS,
      registers,
    });
    this.mailAttempts = new Histogram({
      name: 'mail_attempt_duration_seconds',
      help: 'E-mail send attempts by this process (D42), by outcome (sent, not_sent without an SMTP server, refused, failed), and how long each took',
      labelNames: ['outcome'],
      buckets: ATTEMPT_BUCKETS,
      registers,
    });
    this.jobs = new Histogram({
      name: 'job_duration_seconds',
      help: 'Jobs of the queue run by this process (webhook deliveries, e-mail, tracking evaluations), by task and outcome (completed or failed), and how long each took',
      labelNames: ['task', 'outcome'],
      buckets: ATTEMPT_BUCKETS,
      registers,
    });
    const pool = poolOf(db);
    new Gauge({
      name: 'db_pool_connections',
      help: 'Connections of the PostgreSQL pool, by state (busy or idle)',
      labelNames: ['state'],
      registers,
      collect() {
        if (!pool) return;
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
      },
    });
    new Gauge({
      name: 'db_pool_waiting_queries',
      help: 'Queries waiting for a free connection of the PostgreSQL pool',
      registers,
      collect() {
        if (pool) this.set(pool.waitingCount);
      },
    });
    if (processFigures) collectDefaultMetrics({ register: this.registry });
  }

  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe(method, route, status, seconds);
  }

  rateLimited(limit: LimitName): void {
    this.refusals.inc({ limit });
  }

  apiVersionAnswer(version: string): void {
    this.apiVersions.inc(version);
  }

  idempotentReplay(route: string): void {
    this.replays.inc({ route });
  }

  webhookAttempt(outcome: 'delivered' | 'rejected' | 'unreachable', seconds: number): void {
    this.attempts.observe({ outcome }, seconds);
  }

  mailAttempt(outcome: 'sent' | 'not_sent' | 'refused' | 'failed', seconds: number): void {
    this.mailAttempts.observe({ outcome }, seconds);
  }

  job(task: string, outcome: 'completed' | 'failed', seconds: number): void {
    this.jobs.observe({ task, outcome }, seconds);
  }

  publicCacheLookup(hit: boolean): void {
    this.publicCache.inc(hit ? 'hit' : 'miss');
  }
}

/** Attempts and jobs wait on partners and SMTP servers: up to their timeouts and beyond. */
const ATTEMPT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface RouteTally {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Answers per bucket of DURATION_BUCKETS (not cumulative), the last for longer ones. */
  buckets: number[];
}

/**
 * `http_requests_total` and `http_request_duration_seconds`, counted on every answer: tallied
 * by (method, route, status) in plain numbers and handed to Prometheus as prom-client's own
 * counter and histogram would (same names, labels, buckets and figures, summed across
 * workers). prom-client's objects check and hash the labels of every call, which cost a
 * cached public read more than the rest of its bookkeeping (a CPU profile of
 * scripts/bench/public-read.ts).
 */
class RequestFigures {
  private readonly tallies = new Map<string, RouteTally>();

  constructor(registry: Registry) {
    const figures = (name: string, help: string, type: 'counter' | 'histogram', values: () => object[]) => ({
      name,
      help,
      type,
      aggregator: 'sum' as const,
      // Keyed in the order prom-client's own objects give (the counter names its help first).
      get: async () =>
        type === 'counter'
          ? { help, name, type, values: values(), aggregator: 'sum' as const }
          : { name, help, type, values: values(), aggregator: 'sum' as const },
      reset: () => this.tallies.clear(),
    });
    registry.registerMetric(
      figures(
        'http_requests_total',
        'HTTP requests answered, by method, contract route template and status',
        'counter',
        () => [...this.tallies.values()].map((t) => ({ value: t.count, labels: t.labels })),
      ) as never,
    );
    registry.registerMetric(
      figures(
        'http_request_duration_seconds',
        'Time from the request arriving to the answer being written, by method, route template and status',
        'histogram',
        () => [...this.tallies.values()].flatMap((t) => histogramValues('http_request_duration_seconds', t)),
      ) as never,
    );
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let tally = this.tallies.get(key);
    if (!tally) {
      tally = {
        labels: { method, route, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Array(DURATION_BUCKETS.length + 1).fill(0),
      };
      this.tallies.set(key, tally);
    }
    tally.count++;
    tally.sum += seconds;
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    tally.buckets[i]!++;
  }
}

/** A counter of one label counted on every answer, tallied as RequestFigures is. */
class TalliedCounter {
  private readonly counts = new Map<string, number>();

  constructor(registry: Registry, name: string, help: string, label: string) {
    const values = () => [...this.counts].map(([value, n]) => ({ value: n, labels: { [label]: value } }));
    registry.registerMetric({
      name,
      help,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ help, name, type: 'counter', values: values(), aggregator: 'sum' }),
      reset: () => this.counts.clear(),
    } as never);
  }

  inc(value: string): void {
    this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
  }
}

/** One label set's histogram lines as prom-client gives them: cumulative buckets, +Inf, sum, count. */
function histogramValues(name: string, t: RouteTally): object[] {
  let cumulative = 0;
  const values: object[] = DURATION_BUCKETS.map((le, i) => {
    cumulative += t.buckets[i]!;
    return { value: cumulative, metricName: `${name}_bucket`, exemplar: null, labels: { le, ...t.labels } };
  });
  values.push(
    { value: t.count, metricName: `${name}_bucket`, exemplar: null, labels: { le: '+Inf', ...t.labels } },
    { value: t.sum, metricName: `${name}_sum`, exemplar: undefined, labels: { ...t.labels } },
    { value: t.count, metricName: `${name}_count`, exemplar: undefined, labels: { ...t.labels } },
  );
  return values;
}

interface QueueFigures {
  byStatus: Map<string, number>;
  oldestPendingS: number;
}

/**
 * The webhook queue as the tables show it (D32, D35), read when Prometheus scrapes: pending
 * deliveries, the age of the oldest, and deliveries by outcome; the mail outbox's figures
 * (D42) beside them. Registered once, by the supervisor, since every process would report
 * the same figures.
 */
export function registerQueueMetrics(registry: Registry, db: Db, cap = QUEUE_COUNT_CAP): void {
  registerOutboxMetrics(registry, db, cap, {
    table: 'webhook_deliveries',
    prefix: 'webhook',
    depthHelp: `Webhook deliveries still pending (awaiting their first attempt or a retry), counted up to ${QUEUE_COUNT_CAP}`,
    ageHelp: 'Age of the event behind the oldest pending webhook delivery (0 when none is pending)',
    byStatus: {
      name: 'webhook_deliveries',
      help: `Webhook deliveries by outcome: pending (counted up to ${QUEUE_COUNT_CAP}), delivered or failed (past ${QUEUE_COUNT_CAP} rows, PostgreSQL's estimate)`,
    },
    statuses: ['pending', 'delivered', 'failed'],
  });
  // D42: the mail outbox, the same way.
  registerOutboxMetrics(registry, db, cap, {
    table: 'mail_messages',
    prefix: 'mail',
    depthHelp: `E-mails (to shoppers and store members) still pending (awaiting their first attempt or a retry), counted up to ${QUEUE_COUNT_CAP}`,
    ageHelp: 'Age of the oldest pending e-mail (0 when none is pending)',
    byStatus: {
      name: 'mail_messages',
      help: `E-mails (to shoppers and store members) by outcome: pending (counted up to ${QUEUE_COUNT_CAP}), sent, failed or not_sent (no SMTP server; past ${QUEUE_COUNT_CAP} rows, PostgreSQL's estimate)`,
    },
    statuses: ['pending', 'sent', 'failed', 'not_sent'],
  });
}

interface Outbox {
  table: 'webhook_deliveries' | 'mail_messages';
  prefix: string;
  depthHelp: string;
  ageHelp: string;
  byStatus: { name: string; help: string };
  statuses: readonly string[];
}

/**
 * An outbox table as Prometheus sees it when it scrapes: rows still pending, the age of the
 * oldest, and rows by status. The three gauges share one query per scrape.
 */
function registerOutboxMetrics(registry: Registry, db: Db, cap: number, outbox: Outbox): void {
  let reading: Promise<QueueFigures> | undefined;
  const read = () => {
    reading ??= outboxFigures(db, outbox.table, cap).finally(() => {
      setTimeout(() => {
        reading = undefined;
      }, 1000).unref();
    });
    return reading;
  };
  const registers = [registry];
  new Gauge({
    name: `${outbox.prefix}_queue_depth`,
    help: outbox.depthHelp,
    registers,
    async collect() {
      this.set((await read()).byStatus.get('pending') ?? 0);
    },
  });
  new Gauge({
    name: `${outbox.prefix}_oldest_pending_age_seconds`,
    help: outbox.ageHelp,
    registers,
    async collect() {
      this.set((await read()).oldestPendingS);
    },
  });
  new Gauge({
    name: outbox.byStatus.name,
    help: outbox.byStatus.help,
    labelNames: ['status'],
    registers,
    async collect() {
      const { byStatus } = await read();
      for (const status of outbox.statuses) this.set({ status }, byStatus.get(status) ?? 0);
    },
  });
}

/**
 * Most rows a scrape reads of an outbox table, twice at most: the pending rows (for the depth
 * and the oldest), and any rows (for the count by status). A table within it is counted
 * exactly; past it, the depth reads this cap, the oldest age is the oldest of the pending rows
 * read (a lower bound), and the other states are PostgreSQL's estimate.
 */
export const QUEUE_COUNT_CAP = 10_000;

/**
 * An outbox's figures from bounded reads, never a count of the whole table (it grows with
 * traffic, and every replica is scraped): see QUEUE_COUNT_CAP. The pending rows are read
 * through the table's pending partial index.
 */
async function outboxFigures(db: Db, table: Outbox['table'], cap: number): Promise<QueueFigures> {
  const [pending, counted] = await Promise.all([
    sql<{ n: number; oldestS: number | null }>`
      select count(*)::int as n, extract(epoch from now() - min(created_at)) as oldest_s
      from (select created_at from ${sql.table(table)} where status = 'pending' limit ${cap}) p`.execute(db),
    sql<{ status: string; n: number }>`
      select status, count(*)::int as n
      from (select status from ${sql.table(table)} limit ${cap + 1}) s group by status`.execute(db),
  ]);
  const within = counted.rows.reduce((sum, r) => sum + r.n, 0) <= cap;
  const byStatus = new Map((within ? counted.rows : await estimatedByStatus(db, table)).map((r) => [r.status, r.n]));
  const row = pending.rows[0];
  byStatus.set('pending', row?.n ?? 0);
  return { byStatus, oldestPendingS: Math.max(0, Number(row?.oldestS ?? 0)) };
}

/** Rows by status as PostgreSQL estimates them: the status column's statistics times the table's rows (ANALYZE's). */
async function estimatedByStatus(db: Db, table: Outbox['table']): Promise<{ status: string; n: number }[]> {
  const { rows } = await sql<{ status: string; n: number }>`
    select v.status, round(v.freq * greatest(c.reltuples, 0))::int as n
    from pg_class c
    join pg_stats s on s.schemaname = c.relnamespace::regnamespace::text and s.tablename = c.relname
      and s.attname = 'status'
    cross join lateral unnest(s.most_common_vals::text::text[], s.most_common_freqs) v (status, freq)
    where c.oid = to_regclass(${table})`.execute(db);
  return rows;
}

/**
 * The Prometheus endpoint, on its own port (METRICS_PORT), never on the public one: only
 * `GET /metrics`, anything else 404.
 */
export async function serveMetrics(
  port: number,
  host: string,
  logger: Logger,
  render: () => Promise<{ contentType: string; text: string }>,
): Promise<Server> {
  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    render().then(
      ({ contentType, text }) => res.writeHead(200, { 'content-type': contentType }).end(text),
      (err: unknown) => {
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'metrics unavailable');
        res.writeHead(503, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
