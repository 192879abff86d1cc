import { trace } from '@opentelemetry/api';
import {
  CamelCasePlugin,
  type CompiledQuery,
  Kysely,
  PostgresDialect,
  type QueryResult,
  type RawBuilder,
  sql,
} from 'kysely';
import pg from 'pg';
import { failed, tracingOn } from '../lib/tracing';
import { compiledInOnePass } from '../runtime/kysely-raw';
import {
  oneTripOn,
  PREPARED_MARK,
  parsedOn,
  pipelined,
  type Statement,
  sendThrough,
  statementName,
} from '../runtime/pg-wire';
import type { Database } from './schema';
import { statementSpan, traceQueries } from './traced-queries';

// numeric (money) and bigint (counts) arrive as strings by default; amounts stay well inside
// float precision at the currency's minor units, so numbers are what the handlers want.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number.parseFloat(v));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export type Db = Kysely<Database>;

/** A raw statement ready to run, as `prepared` answers it. */
export interface PreparedStatement<T> {
  execute(db: Db): Promise<QueryResult<T>>;
}

/**
 * A statement PostgreSQL parses and plans once per connection, then only binds values to
 * (a named prepared statement): for the hot statements, whose text comes in a few fixed
 * variants. Runs like any other statement, in or out of a transaction.
 *
 * Named by the `named-statements` device, its text and values read in one pass by
 * `one-pass-raw` (`runtime/`); the plugins still map the rows that come back.
 */
export function prepared<T>(query: RawBuilder<T>): PreparedStatement<T> {
  return {
    execute(db) {
      return db.executeQuery<T>(compilePrepared(query, db));
    },
  };
}

/** The text (marked prepared) and values of `query`, as `prepared` runs it. */
function compilePrepared<T>(query: RawBuilder<T>, db: Db): CompiledQuery<T> {
  const onePass = compiledInOnePass(query);
  if (onePass)
    return {
      query: query.toOperationNode(),
      queryId: { queryId: '' },
      sql: PREPARED_MARK + onePass.sql,
      parameters: onePass.parameters,
    };
  const compiled = query.compile(db);
  return { ...compiled, sql: PREPARED_MARK + compiled.sql };
}

/** Column names to camelCase in every row read, of Kysely's queries and of `inOneTrip`. */
const camelCase = new CamelCasePlugin({ maintainNestedObjectKeys: true });
/** For the statements after it in the same transaction: generic plans only. */
const GENERIC_PLANS = sql`select set_config('plan_cache_mode', 'force_generic_plan', true)`;

/**
 * Runs `statements` as one transaction in one round trip: sent together before one Sync, they
 * run in order in the transaction PostgreSQL opens for them, committed at the Sync unless one
 * fails (then nothing of any is kept). For a change whose statements need nothing from each
 * other's answers in between: each sees what those before it wrote, and a lock one takes holds
 * to the end (in READ COMMITTED each still reads with a snapshot of its own start). Answers
 * the result of each of `statements`. Statements are prepared (named) as `prepared` makes them; on a
 * connection that has not parsed them yet they go one by one, in a transaction, that once.
 *
 * `genericPlans`: every statement runs on a generic plan, so that it is planned once per
 * connection. PostgreSQL chooses between generic and per-call plans once per statement and
 * connection, after five calls, on the statistics of that moment; a large statement whose
 * choice fell on per-call plans is planned again on every call (the claim filing's write: 1.7
 * ms of planning for 1.2 ms of work). For statements written to be planned once.
 */
export async function inOneTrip(
  db: Db,
  statements: RawBuilder<unknown>[],
  { genericPlans = false }: { genericPlans?: boolean } = {},
): Promise<QueryResult<Record<string, unknown>>[]> {
  const pool = pools.get(db);
  if (!pool) throw new Error('inOneTrip runs on a database createDb made, outside any transaction');
  const all = genericPlans ? [GENERIC_PLANS, ...statements] : statements;
  const wire: Statement[] = all.map((s) => {
    const { sql: text, parameters } = compilePrepared(s, db);
    queryWatchers.get(db)?.(text);
    return { text, values: [...parameters], name: statementName(text) };
  });
  const client = await pool.connect();
  try {
    let results: pg.QueryResult[];
    // Through a transaction pooler (D48) nothing is parsed on a connection for the next
    // transaction: the statements go one by one, unnamed (the pool's `sendThrough` names none).
    if (!unnamedPools.has(pool) && oneTripOn() && wire.every((s) => parsedOn(client, s.name!))) {
      results = await pipelinedTrip(client, wire);
    } else {
      results = await oneByOne(client, wire);
    }
    return await Promise.all(
      results
        .slice(all.length - statements.length)
        .map((r) => camelCase.transformResult({ queryId: { queryId: '' }, result: { rows: r.rows } })),
    );
  } finally {
    client.release();
  }
}

/**
 * The statements of a trip in one write (the `one-trip` device), one span for them all
 * within a trace (`traced-queries.ts`): the pipelined query passes the client's `query` as
 * one submittable, whose statements only this function knows.
 */
async function pipelinedTrip(client: pg.PoolClient, wire: Statement[]): Promise<pg.QueryResult[]> {
  const span =
    tracingOn() && trace.getActiveSpan() ? statementSpan(wire.map((s) => s.text).join(';\n'), wire.length) : undefined;
  try {
    return await new Promise((resolve, reject) => {
      client.query(pipelined(wire.slice(0, -1), wire.at(-1)!, (err, r) => (err ? reject(err) : resolve(r))));
    });
  } catch (err) {
    if (span) failed(span, err);
    throw err;
  } finally {
    span?.end();
  }
}

/** The statements of a trip one round trip each, in a transaction: their first use on a connection. */
async function oneByOne(client: pg.PoolClient, wire: Statement[]): Promise<pg.QueryResult[]> {
  const send = client.query.bind(client) as (text: string, values: unknown[]) => Promise<pg.QueryResult>;
  await send('begin', []);
  try {
    const results: pg.QueryResult[] = [];
    for (const s of wire) results.push(await send(s.text, s.values));
    await send('commit', []);
    return results;
  } catch (err) {
    await send('rollback', []).catch(() => {});
    throw err;
  }
}

/**
 * A connection lost (a restart, a failover) must not take the process down (D46). The pool
 * handles errors of idle clients only; a client lent out when its connection dies emits
 * 'error' with no listener, which Node turns into an uncaught exception. Every client gets a
 * listener for its whole life: the statement it was running fails with the error (answered
 * 503), and the pool discards the broken client when it comes back.
 */
export function handleConnectionErrors(pool: pg.Pool): void {
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
}

/**
 * Where each database instance's sessions connect: the one dedicated LISTEN connection
 * (../cache/listener.ts) and the job queue's migrations. Its `directConnectionString` when
 * given (D48), else the one its pool uses.
 */
const connectionStrings = new WeakMap<object, string>();

/** Where what needs a session (LISTEN, migrations) connects for a database instance. */
export function connectionStringOf(db: Db): string | undefined {
  return connectionStrings.get(db);
}

export interface DbOptions {
  /** Pool size; Postgres is the only shared state, so keep it modest per process. */
  max?: number;
  applicationName?: string;
  /** Sees every query the instance runs (tests count them). */
  onQuery?: (sql: string) => void;
  /**
   * Commit without waiting for the WAL flush (`synchronous_commit=off`): for work whose last
   * commits may be lost in a database crash without harm, as webhook delivery's are.
   */
  asyncCommit?: boolean;
  /** How long a query may wait for a connection (a free one, or a new one to connect); default POOL_WAIT_MS. */
  poolWaitMs?: number;
  /**
   * D48: `connectionString` names a pooler in transaction mode, which hands each transaction
   * any server connection and refuses startup settings. This pool then names no statement
   * (`named-statements` and `inOneTrip`'s trip stay off for it alone, whatever `FAST_PATHS`
   * says for others) and sends no `options` at connection start: `asyncCommit` is not applied
   * (its commits wait for the WAL flush, as every API commit does).
   */
  transactionPooler?: boolean;
  /** D48: where LISTEN and migrations of this instance connect (`connectionStringOf`); default `connectionString`. */
  directConnectionString?: string;
}

/**
 * No statement waits longer than this for a connection: while PostgreSQL cannot be reached,
 * or every connection is busy for that long, the request is answered 503 instead of hanging
 * (D46). Connecting takes milliseconds and a queue of this length is an overload.
 */
export const POOL_WAIT_MS = 5000;

const pools = new WeakMap<Db, pg.Pool>();
/** The pools behind a transaction pooler: their statements go unnamed (D48). */
const unnamedPools = new WeakSet<pg.Pool>();
/** `DbOptions.onQuery` of each database, for the statements `inOneTrip` sends past Kysely. */
const queryWatchers = new WeakMap<Db, (sql: string) => void>();

/** The connection pool behind a database created here (metrics read its figures). */
export function poolOf(db: Db): pg.Pool | undefined {
  return pools.get(db);
}

export function createDb(
  connectionString: string,
  {
    max = 10,
    applicationName = 'protection-service',
    onQuery,
    asyncCommit,
    poolWaitMs = POOL_WAIT_MS,
    transactionPooler = false,
    directConnectionString = connectionString,
  }: DbOptions = {},
): Db {
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: applicationName,
    connectionTimeoutMillis: poolWaitMs,
    // A server that vanished without closing (a failover, a dropped route) is noticed.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // A transaction pooler refuses the startup parameter `options` (D48).
    ...(asyncCommit && !transactionPooler ? { options: '-c synchronous_commit=off' } : {}),
  });
  handleConnectionErrors(pool);
  if (transactionPooler) unnamedPools.add(pool);
  pool.on('connect', (client) => {
    sendThrough(client, { unnamed: transactionPooler });
    // After the devices: it sees each statement as the application sent it.
    traceQueries(client);
  });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [camelCase],
    ...(onQuery ? { log: (event) => onQuery(event.query.sql) } : {}),
  });
  connectionStrings.set(db, directConnectionString);
  pools.set(db, pool);
  if (onQuery) queryWatchers.set(db, onQuery);
  return db;
}
