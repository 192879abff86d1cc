import { createHash } from 'node:crypto';
import pg from 'pg';
import { fastPath, firstProblem, outsideRange, packageVersion, turnOff } from './fast-paths';

/**
 * The devices that send statements past `pg`'s own ways: named prepared statements, a
 * transaction's `begin` held for its first statement, and several statements in one write.
 * The last two reach pg's private connection methods (`parse`, `bind`, `describe`,
 * `execute`), its `Query.submit` and the statements a connection has parsed.
 */

const pgVersion = () => outsideRange('pg', packageVersion('pg'), '8.11.0', '9.0.0');

/** pg's private parts the held begin and the one-trip pipeline reach, as they were written against. */
function pgInternals(): string | undefined {
  const connection = (pg as unknown as { Connection?: { prototype: Record<string, unknown> } }).Connection?.prototype;
  for (const method of ['parse', 'bind', 'describe', 'execute'] as const) {
    if (typeof connection?.[method] !== 'function') return `pg's Connection has no ${method} method`;
  }
  if (typeof (pg.Query.prototype as { submit?: unknown }).submit !== 'function')
    return "pg's Query has no submit method";
  if (typeof prepareValue !== 'function') return 'pg.utils has no prepareValue';
  return undefined;
}

/** Statements `prepared` marked go as named ones, parsed and planned once per connection. */
export const namedStatementsOn = fastPath({ name: 'named-statements', guard: pgVersion });
/** A transaction's `begin` waits to go with the transaction's first statement, in one write. */
export const heldBeginOn = fastPath({ name: 'held-begin', guard: () => firstProblem(pgVersion, pgInternals) });
/** `inOneTrip`'s statements go in one write before one Sync. */
export const oneTripOn = fastPath({ name: 'one-trip', guard: () => firstProblem(pgVersion, pgInternals) });

/** What `prepared` puts at the start of a statement's text. */
export const PREPARED_MARK = '/* prepared */ ';
const statementNames = new Map<string, string>();

/** The name of a prepared statement: a digest of its text. */
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `p_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * Every client of a pool sends its statements through here, when either device is on
 * (`unnamed`: none is named for this pool):
 * - the statements `prepared` marked go as named ones (named by a digest of their text);
 * - a transaction's `begin` answers nothing worth a round trip: it is held and sent with the
 *   transaction's next statement, in one write answered at once (the extended protocol runs
 *   the messages before one Sync in order, and an error skips the rest). A transaction ended
 *   before any statement never reaches the server.
 */
export function sendThrough(client: pg.PoolClient, { unnamed = false }: { unnamed?: boolean } = {}): void {
  // `unnamed`: a pool behind a transaction pooler (D48), where a statement parsed in one
  // transaction's server session is not there for the next; the held begin still works there.
  const named = !unnamed && namedStatementsOn();
  if (!named && !heldBeginOn()) return;
  if (heldBeginOn() && !hasParsedStatements(client)) {
    turnOff('held-begin', 'a pg connection has no parsedStatements to read');
    turnOff('one-trip', 'a pg connection has no parsedStatements to read');
  }
  const holdBegin = heldBeginOn();
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  let beginHeld = false;
  /** Sends the held begin on its own; an error it meets fails the next statement too. */
  const sendBegin = () => {
    query('begin').catch(() => {});
    beginHeld = false;
  };
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    if (args.length !== 2 || typeof text !== 'string' || !Array.isArray(values)) {
      if (beginHeld) sendBegin();
      return query(...args);
    }
    if (holdBegin && values.length === 0 && text === 'begin') {
      beginHeld = true;
      return Promise.resolve(NOTHING);
    }
    if (beginHeld && values.length === 0 && (text === 'commit' || text === 'rollback')) {
      beginHeld = false;
      return Promise.resolve(NOTHING);
    }
    const config: Statement =
      named && text.startsWith(PREPARED_MARK) ? { name: statementName(text), text, values } : { text, values };
    if (!beginHeld) return query(config);
    // A statement parsed for the first time on this connection goes alone: pg takes the first
    // ParseComplete of a query for its own and would count it parsed even if its parse failed.
    if (config.name && !parsedOn(client, config.name)) {
      sendBegin();
      return query(config);
    }
    beginHeld = false;
    if (values.length === 0) {
      // Text alone goes by the simple protocol, which also takes several statements in one.
      return query(`begin;\n${text}`).then((results) => (Array.isArray(results) ? results.at(-1) : results));
    }
    return new Promise((resolve, reject) => {
      client.query(
        pipelined([{ text: 'begin', values: [] }], config, (err, results) =>
          err ? reject(err) : resolve(results.at(-1)),
        ),
      );
    });
  };
}

/** What the held begin (and a commit or rollback of nothing) answers at once. */
const NOTHING = { command: null, rowCount: null, rows: [], fields: [] };

/** A statement as the wire takes it: named when `prepared` marked it. */
export interface Statement {
  text: string;
  values: unknown[];
  name?: string;
}
type Callback = (err: Error | null, results: pg.QueryResult[]) => void;
/** The parts of pg's query and connection a pipelined query needs (not in pg's types). */
interface PipelinedQuery {
  submit(connection: PgConnection): Error | null;
}
interface PgConnection {
  stream: { cork?(): void; uncork?(): void };
  parse(m: { text: string; name: string }): void;
  bind(m: { statement: string; portal: string; values: unknown[]; valueMapper: (v: unknown) => unknown }): void;
  describe(m: { type: 'P'; name: string }): void;
  execute(m: { portal: string }): void;
}
const prepareValue = (pg as unknown as { utils?: { prepareValue?(v: unknown): unknown } }).utils?.prepareValue;

/**
 * A query that first runs `before`, in the same write and before the same Sync (the extended
 * protocol runs them in order, and an error skips the rest); answers every statement's result,
 * in order. A named statement of `before` must be parsed on the connection already.
 */
export function pipelined(before: Statement[], last: Statement, callback: Callback): pg.Query {
  const pgQuery = new pg.Query({
    ...last,
    queryMode: 'extended',
    callback: (err: Error | null, results: pg.QueryResult | pg.QueryResult[]) =>
      callback(err, Array.isArray(results) ? results : [results]),
  } as pg.QueryConfig);
  const query = pgQuery as unknown as PipelinedQuery;
  const submit = query.submit.bind(query);
  query.submit = (connection) => {
    connection.stream.cork?.();
    try {
      for (const s of before) {
        if (!s.name) connection.parse({ text: s.text, name: '' });
        connection.bind({ statement: s.name ?? '', portal: '', values: s.values, valueMapper: prepareValue! });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '' });
      }
      return submit(connection);
    } finally {
      connection.stream.uncork?.();
    }
  };
  return pgQuery;
}

const parsedStatementsOf = (client: pg.PoolClient) =>
  (client as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection?.parsedStatements;

const hasParsedStatements = (client: pg.PoolClient) => typeof parsedStatementsOf(client) === 'object';

/** Whether pg has parsed the named statement on this client (it then sends no Parse). */
export const parsedOn = (client: pg.PoolClient, name: string): boolean =>
  parsedStatementsOf(client)?.[name] !== undefined;
