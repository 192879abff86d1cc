import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/database';
import { isConcurrencyAbort, isDatabaseUnavailable } from '../../src/db/unavailable';
import { freePort } from '../../src/free-port';
import { mapError } from '../../src/http/errors';
import { cloneDatabase } from '../harness/server';

/** D46: which real failures mean "the database is out of reach" (503), and which do not (500 or 4xx). */
describe('isDatabaseUnavailable', () => {
  let database: Awaited<ReturnType<typeof cloneDatabase>>;
  beforeAll(async () => {
    database = await cloneDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const failureOf = async (run: () => Promise<unknown>) => {
    try {
      await run();
    } catch (err) {
      return err;
    }
    throw new Error('did not fail');
  };

  it('is true for a refused connection and for a pool that cannot connect in time', async () => {
    const closed = createDb(`postgres://postgres:postgres@127.0.0.1:${await freePort()}/none`, { max: 1 });
    expect(isDatabaseUnavailable(await failureOf(() => closed.selectFrom('orders').selectAll().execute()))).toBe(true);
    await closed.destroy();
    // The one connection is made without haste (a loaded machine may take longer than the wait
    // under test); the next caller then waits 50 ms for it.
    const timeout = new pg.Pool({ connectionString: database.url, max: 1, connectionTimeoutMillis: 10_000 });
    const held = await timeout.connect();
    (timeout as unknown as { options: { connectionTimeoutMillis: number } }).options.connectionTimeoutMillis = 50;
    expect(isDatabaseUnavailable(await failureOf(() => timeout.query('select 1')))).toBe(true);
    held.release();
    await timeout.end();
  });

  it('is true for a session the server ends (57P01) and for the broken client afterwards', async () => {
    const client = new pg.Client({ connectionString: database.url });
    client.on('error', () => {});
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const ended = failureOf(() => client.query('select pg_sleep(5)'));
    await database.db.selectNoFrom((eb) => eb.fn('pg_terminate_backend', [eb.val(rows[0]!.pid)]).as('t')).execute();
    expect(isDatabaseUnavailable(await ended)).toBe(true);
    expect(isDatabaseUnavailable(await failureOf(() => client.query('select 1')))).toBe(true);
  });

  it('answers a deadlock PostgreSQL broke with 503 and Retry-After, not 500: nothing of it was applied', async () => {
    await sql`create table deadlock_rows (id int primary key, v int not null default 0)`.execute(database.db);
    await sql`insert into deadlock_rows (id) values (1), (2)`.execute(database.db);
    const [a, b] = [
      new pg.Client({ connectionString: database.url }),
      new pg.Client({ connectionString: database.url }),
    ];
    await Promise.all([a.connect(), b.connect()]);
    try {
      await a.query('begin');
      await b.query('begin');
      await a.query('update deadlock_rows set v = 1 where id = 1');
      await b.query('update deadlock_rows set v = 2 where id = 2');
      // Each now waits for the row the other holds; PostgreSQL ends one of the two.
      const outcomes = await Promise.allSettled([
        a.query('update deadlock_rows set v = 1 where id = 2'),
        b.query('update deadlock_rows set v = 2 where id = 1'),
      ]);
      const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
      expect(failures).toHaveLength(1);
      const deadlock = failures[0];
      expect((deadlock as { code: string }).code).toBe('40P01');
      expect(isConcurrencyAbort(deadlock)).toBe(true);
      expect(isDatabaseUnavailable(deadlock)).toBe(false);
      const answer = mapError(deadlock);
      expect(answer).toMatchObject({ status: 503, options: { headers: { 'retry-after': '2' } } });
      // The other commits; of the one ended, nothing remains.
      const survivor = outcomes[0]!.status === 'fulfilled' ? { client: a, v: 1 } : { client: b, v: 2 };
      await survivor.client.query('commit');
      const { rows } = await sql<{ v: number }>`select v from deadlock_rows order by id`.execute(database.db);
      expect(rows.map((r) => r.v)).toEqual([survivor.v, survivor.v]);
    } finally {
      await Promise.all([a.query('rollback').catch(() => {}), b.query('rollback').catch(() => {})]);
      await Promise.all([a.end(), b.end()]);
    }
    const division = await failureOf(() => sql`select 1/0`.execute(database.db));
    expect(isConcurrencyAbort(division)).toBe(false);
    expect(mapError(division)).toBeNull();
  });

  it('is false for a statement PostgreSQL refuses, and for anything else', async () => {
    const syntax = await failureOf(() => sql`selec 1`.execute(database.db));
    expect(isDatabaseUnavailable(syntax)).toBe(false);
    const division = await failureOf(() => sql`select 1/0`.execute(database.db));
    expect(isDatabaseUnavailable(division)).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isDatabaseUnavailable('Connection terminated')).toBe(false);
  });
});
