import { createHash } from 'node:crypto';
import {
  CamelCasePlugin,
  type CompiledQuery,
  Kysely,
  type OperationNode,
  PostgresDialect,
  type QueryResult,
  type RawBuilder,
  RawNode,
  ValueNode,
} from 'kysely';
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

/** A raw statement ready to run, as `prepared` answers it. */
export interface PreparedStatement<T> {
  execute(db: Db): Promise<QueryResult<T>>;
}

/**
 * A statement PostgreSQL parses and plans once per connection, then only binds values to
 * (a named prepared statement): for the hot statements, whose text comes in a few fixed
 * variants. Runs like any other statement, in or out of a transaction.
 *
 * Its text and values are read off the `sql` template in one pass (`compileRaw`), not by
 * Kysely's plugin transform and compiler, which rebuild and walk the whole tree on every
 * call: raw SQL has no identifier for the camel-case plugin to rename. The plugins still
 * map the rows that come back.
 */
export function prepared<T>(query: RawBuilder<T>): PreparedStatement<T> {
  return {
    execute(db) {
      const node = query.toOperationNode();
      const text: string[] = [PREPARED_MARK];
      const parameters: unknown[] = [];
      if (!compileRaw(node, text, parameters)) {
        // Identifiers, literals and the like: Kysely compiles them (its text is the same).
        const compiled = query.compile(db);
        return db.executeQuery<T>({ ...compiled, sql: PREPARED_MARK + compiled.sql });
      }
      const compiled: CompiledQuery<T> = { query: node, queryId: { queryId: '' }, sql: text.join(''), parameters };
      return db.executeQuery(compiled);
    },
  };
}

/**
 * Appends the text of a raw node to `text` and its values to `parameters` (`$1`, `$2`, ... in
 * order, as Kysely's PostgreSQL compiler numbers them). False when the node holds anything
 * but text, nested `sql` templates and bound values.
 */
function compileRaw(node: OperationNode, text: string[], parameters: unknown[]): boolean {
  if (!RawNode.is(node)) return false;
  const { sqlFragments, parameters: children } = node;
  for (let i = 0; i < sqlFragments.length; i++) {
    text.push(sqlFragments[i]!);
    const child = children[i];
    if (child === undefined) continue;
    if (ValueNode.is(child) && !child.immediate) {
      parameters.push(child.value);
      text.push(`$${parameters.length}`);
    } else if (!compileRaw(child, text, parameters)) {
      return false;
    }
  }
  return true;
}

/**
 * Every client of the pool sends its statements through here:
 * - the statements `prepared` marked go as named ones (named by a digest of their text);
 * - a transaction's `begin`, and the `set local` settings right after it, answer nothing worth
 *   a round trip: they are held and sent with the transaction's next statement, in one write
 *   answered at once (the extended protocol runs the messages before one Sync in order, and an
 *   error skips the rest). A transaction ended before any statement never reaches the server.
 */
function sendThrough(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  let held: string[] = [];
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (args.length !== 2 || typeof text !== 'string' || !Array.isArray(values)) {
      if (held.length > 0) sendHeld();
      return query(...args);
    }
    if (values.length === 0 && (text === 'begin' || (held.length > 0 && SET_LOCAL.test(text)))) {
      held.push(text);
      return Promise.resolve(NOTHING);
    }
    if (held.length > 0 && values.length === 0 && (text === 'commit' || text === 'rollback')) {
      held = [];
      return Promise.resolve(NOTHING);
    }
    const config: pg.QueryConfig = text.startsWith(PREPARED_MARK)
      ? { name: statementName(text), text, values }
      : { text, values };
    if (held.length === 0) return query(config);
    // A statement parsed for the first time on this connection goes alone: pg takes the first
    // ParseComplete of a query for its own and would count it parsed even if its parse failed.
    const parsed = (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection
      .parsedStatements;
    if (config.name && parsed[config.name] === undefined) {
      sendHeld();
      return query(config);
    }
    const before = held;
    held = [];
    return new Promise((resolve, reject) => {
      client.query(
        afterHeld(before, config, (err, results) =>
          err ? reject(err) : resolve(Array.isArray(results) ? results[results.length - 1] : results),
        ),
      );
    });
  };
  /** Sends the held statements on their own; an error they meet fails the next statement too. */
  function sendHeld(): void {
    query(held.join('; ')).catch(() => {});
    held = [];
  }
}

/** What a held statement answers at once. */
const NOTHING = { command: null, rowCount: null, rows: [], fields: [] };
const SET_LOCAL = /^set local [a-z_]+ = [a-z_]+$/;

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `p_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

type Callback = (err: Error | null, results: unknown) => void;
/** The parts of pg's query and connection a held statement needs (not in pg's types). */
interface HeldQuery {
  text: string;
  requiresPreparation(): boolean;
  submit(connection: PgConnection): Error | null;
}
interface PgConnection {
  stream: { cork?(): void; uncork?(): void };
  parse(m: { text: string; name: string }): void;
  bind(m: { statement: string; portal: string; values: unknown[] }): void;
  execute(m: { portal: string }): void;
}

/**
 * A query that first runs `held` (statements without values), in the same write and before
 * the same Sync; pg answers the results of all, the query's last. Without values the query
 * goes as one simple-protocol text after the held ones.
 */
function afterHeld(held: string[], config: pg.QueryConfig, callback: Callback): pg.Query {
  const pgQuery = new pg.Query({ ...config, callback } as pg.QueryConfig);
  const query = pgQuery as unknown as HeldQuery;
  const submit = query.submit.bind(query);
  query.submit = (connection) => {
    if (!query.requiresPreparation()) {
      query.text = [...held, query.text].join('; ');
      return submit(connection);
    }
    connection.stream.cork?.();
    try {
      for (const text of held) {
        connection.parse({ text, name: '' });
        connection.bind({ statement: '', portal: '', values: [] });
        connection.execute({ portal: '' });
      }
      return submit(connection);
    } finally {
      connection.stream.uncork?.();
    }
  };
  return pgQuery;
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
  pool.on('connect', sendThrough);
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    plugins: [new CamelCasePlugin({ maintainNestedObjectKeys: true })],
    ...(onQuery ? { log: (event) => onQuery(event.query.sql) } : {}),
  });
  connectionStrings.set(db, connectionString);
  pools.set(db, pool);
  return db;
}
