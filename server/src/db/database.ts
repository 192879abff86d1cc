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
}

const pools = new WeakMap<Db, pg.Pool>();

/** The connection pool behind a database created here (metrics read its figures). */
export function poolOf(db: Db): pg.Pool | undefined {
  return pools.get(db);
}

export function createDb(
  connectionString: string,
  { max = 10, applicationName = 'protection-service', onQuery, asyncCommit }: DbOptions = {},
): Db {
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: applicationName,
    ...(asyncCommit ? { options: '-c synchronous_commit=off' } : {}),
  });
  // An idle client losing its connection must not take the process down.
  pool.on('error', () => {});
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
