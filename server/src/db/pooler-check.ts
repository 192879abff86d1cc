import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** How many times an undecided session check runs before the connection is taken for a session. */
const ATTEMPTS = 3;
/** A session's own read answers at once; waiting this long, it waits for another's server. */
const WAIT_MS = 2000;

/**
 * D48: with `DATABASE_POOLER=none` the service keeps session state (named statements, startup
 * settings); behind a pooler in transaction mode that half-works, so the process refuses to
 * start instead. Answers whether `url` reaches such a pooler, in a few milliseconds:
 *
 * 1. A direct connection's BackendKeyData carries its backend's pid; a pooler sends its own
 *    cancel key. Same pid: no pooler, done (one statement).
 * 2. Else a pooler in some mode (session pooling is fine). Connection A sets a session-level
 *    setting and notes its backend; connection B then holds a transaction open; A reads the
 *    setting back. On a session of its own (session pooling) A always finds it. A transaction
 *    pooler hands B the server A just released (PgBouncer reuses the most recent first), so A's
 *    read runs on another server and finds nothing. Should B get another server (the check is
 *    then undecided: A may get its first server back), it runs again.
 *
 * A read that waits (a pooler of one server connection, held by B) tells the same. It can only
 * err towards "not a transaction pooler", never refuse a session.
 */
export async function reachesTransactionPooler(url: string): Promise<boolean> {
  const a = new pg.Client({
    connectionString: url,
    application_name: 'protection-service-check',
    connectionTimeoutMillis: 5000,
  });
  const b = new pg.Client({
    connectionString: url,
    application_name: 'protection-service-check',
    connectionTimeoutMillis: 5000,
  });
  a.on('error', () => {});
  b.on('error', () => {});
  try {
    await a.connect();
    const first = await pidOf(a);
    if (first === (a as unknown as { processID?: number }).processID) return false;
    await b.connect();
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const token = randomBytes(8).toString('hex');
      const set = await a.query<{ pid: number }>(
        "select set_config('protection_service.session_check', $1, false), pg_backend_pid() as pid",
        [token],
      );
      await b.query('begin');
      try {
        const held = await pidOf(b);
        const read = await Promise.race([
          a.query<{ value: string | null }>(
            "select current_setting('protection_service.session_check', true) as value",
          ),
          // A read waiting for a server while B holds one: a pool of one, handed out per transaction.
          new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), WAIT_MS).unref()),
        ]);
        if (read === 'waiting' || read.rows[0]?.value !== token) return true;
        // B held A's server and A still had its setting: A has a session of its own.
        if (held === set.rows[0]?.pid) return false;
      } finally {
        await b.query('rollback');
      }
    }
    return false;
  } finally {
    await Promise.all([a.end().catch(() => {}), b.end().catch(() => {})]);
  }
}

async function pidOf(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  return rows[0]!.pid;
}

/** The refusal of a process left at `DATABASE_POOLER=none` behind a transaction pooler (D48). */
export const TRANSACTION_POOLER_REFUSAL =
  'DATABASE_URL reaches a connection pooler in transaction mode, but DATABASE_POOLER is none: set DATABASE_POOLER=transaction and DATABASE_DIRECT_URL to a direct connection (D48)';
