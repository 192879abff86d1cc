import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema';

// numeric (money) and bigint (counts) arrive as strings by default; amounts stay well inside
// float precision at the currency's minor units, so numbers are what the handlers want.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number.parseFloat(v));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));

export type Db = Kysely<Database>;

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
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin({ maintainNestedObjectKeys: true })],
    ...(onQuery ? { log: (event) => onQuery(event.query.sql) } : {}),
  });
  connectionStrings.set(db, connectionString);
  return db;
}
