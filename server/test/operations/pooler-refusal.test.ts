import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reachesTransactionPooler } from '../../src/db/pooler-check';
import { type PgBouncer, startPgBouncer } from '../harness/pgbouncer';
import { startServiceProcess } from '../harness/processes';
import { cloneDatabase } from '../harness/server';

/**
 * D48: a server left at `DATABASE_POOLER=none` behind a pooler in transaction mode refuses to
 * start, naming DATABASE_POOLER; directly and behind session pooling it starts.
 */
describe('DATABASE_POOLER=none behind a transaction pooler (D48)', () => {
  let database: Awaited<ReturnType<typeof cloneDatabase>>;
  let transaction: PgBouncer;
  let session: PgBouncer;
  let small: PgBouncer;

  beforeAll(async () => {
    database = await cloneDatabase();
    [transaction, session, small] = await Promise.all([
      startPgBouncer(database.url),
      startPgBouncer(database.url, { poolMode: 'session' }),
      startPgBouncer(database.url, { poolSize: 1 }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([transaction?.stop(), session?.stop(), small?.stop()]);
    await database?.drop();
  });

  it('tells a transaction pooler from a direct connection and from session pooling', async () => {
    expect(await reachesTransactionPooler(database.url)).toBe(false);
    expect(await reachesTransactionPooler(session.url(database.url))).toBe(false);
    expect(await reachesTransactionPooler(transaction.url(database.url))).toBe(true);
    // One server connection for every client: the check's second read waits for it.
    expect(await reachesTransactionPooler(small.url(database.url))).toBe(true);
  }, 30_000);

  it('tells it every time, with other clients holding server connections', async () => {
    const busy = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const { default: pg } = await import('pg');
        const c = new pg.Client({ connectionString: transaction.url(database.url) });
        await c.connect();
        await c.query('begin');
        await c.query('select 1');
        return c;
      }),
    );
    try {
      for (let i = 0; i < 5; i++) expect(await reachesTransactionPooler(transaction.url(database.url))).toBe(true);
    } finally {
      await Promise.all(busy.map((c) => c.query('rollback').then(() => c.end())));
    }
  }, 30_000);

  it('pnpm start refuses to start, naming DATABASE_POOLER', async () => {
    const started = startServiceProcess({
      entry: 'main',
      databaseUrl: transaction.url(database.url),
      secretKey: randomBytes(32),
      env: { WEBHOOK_WORKERS: '0', DATABASE_POOLER: 'none' },
    });
    await expect(started).rejects.toThrow(/exited with 1[\s\S]*DATABASE_POOLER/);
  }, 60_000);

  it('pnpm start serves behind session pooling at DATABASE_POOLER=none', async () => {
    const service = await startServiceProcess({
      entry: 'main',
      databaseUrl: session.url(database.url),
      secretKey: randomBytes(32),
      env: { WEBHOOK_WORKERS: '0' },
    });
    try {
      expect(service.output()).toContain('protection service listening');
    } finally {
      await service.stop();
    }
  }, 60_000);
});
