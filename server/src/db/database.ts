import { createHash } from 'node:crypto';
import { CamelCasePlugin, Kysely, PostgresDialect, type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './schema';

// numeric (money) and bigint (counts) arrive as strings by default; amounts stay well inside
// float precision at the currency's minor units, so numbers are what the handlers want.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number.parseFloat(v));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export type Db = Kysely<Database>;

/** What `prepared` puts at the start of a statement's text. */
const PREPARED_MARK = '/* prepared */ ';
const statementNames = new Map<string, string>();

/**
 * A statement PostgreSQL parses and plans once per connection, then only binds values to
 * (a named prepared statement): for the hot statements, whose text comes in a few fixed
 * variants. Runs like any other statement, in or out of a transaction.
 */
export function prepared<T>(query: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(PREPARED_MARK)}${query}`;
}

/** Sends the statements `prepared` marked as named ones (named by a digest of their text). */
function prepareMarked(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (args.length !== 2 || typeof text !== 'string' || !text.startsWith(PREPARED_MARK)) return query(...args);
    let name = statementNames.get(text);
    if (!name) {
      name = `p_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
      statementNames.set(text, name);
    }
    return query({ name, text, values });
  };
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

/** Where each database instance connects, for the one dedicated LISTEN connection (./listener.ts). */
const connectionStrings = new WeakMap<object, string>();

/** The connection string a database instance (or a transaction of it) was created with. */
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
}

/**
 * No statement waits longer than this for a connection: while PostgreSQL cannot be reached,
 * or every connection is busy for that long, the request is answered 503 instead of hanging
 * (D46). Connecting takes milliseconds and a queue of this length is an overload.
 */
export const POOL_WAIT_MS = 5000;

const pools = new WeakMap<Db, pg.Pool>();

/** The connection pool behind a database created here (metrics read its figures). */
export function poolOf(db: Db): pg.Pool | undefined {
  return pools.get(db);
}

export function createDb(
  connectionString: string,
  { max = 10, applicationName = 'protection-service', onQuery, asyncCommit, poolWaitMs = POOL_WAIT_MS }: DbOptions = {},
): Db {
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: applicationName,
    connectionTimeoutMillis: poolWaitMs,
    // A server that vanished without closing (a failover, a dropped route) is noticed.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(asyncCommit ? { options: '-c synchronous_commit=off' } : {}),
  });
  handleConnectionErrors(pool);
  pool.on('connect', prepareMarked);
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin({ maintainNestedObjectKeys: true })],
    ...(onQuery ? { log: (event) => onQuery(event.query.sql) } : {}),
  });
  connectionStrings.set(db, connectionString);
  pools.set(db, pool);
  return db;
}
