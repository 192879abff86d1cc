import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceStoreChange, type Change } from '../../src/cache/changes';
import { ChangeListener } from '../../src/cache/listener';
import {
  STORE_CACHE_KEPT_WHEN_LOST_MS,
  STORE_CACHE_LONG_TTL_MS,
  STORE_CACHE_SHORT_TTL_MS,
} from '../../src/cache/store-cache';
import { StoreChangeFeed } from '../../src/cache/store-change-feed';
import { TtlCache } from '../../src/cache/ttl-cache';
import { connectionStringOf, createDb, type Db } from '../../src/db/database';
import { transact } from '../../src/db/transact';
import { RevocationFeed, recordRevocation } from '../../src/domain/auth/revocations';
import { createStore } from '../../src/domain/identity/stores';
import { PublicReadCache } from '../../src/http/public-cache';
import type { ServiceMetrics } from '../../src/metrics';
import { answered, createApp, createOwner, installWithToken } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * The change channel (D13, D29): NOTIFY after the writing transaction commits, one listener per
 * process that re-subscribes when its connection drops, the store-change feed behind it, and
 * the public cache's lifetimes.
 */
describe('change announcements', () => {
  let server: TestServer;
  let url: string;
  beforeAll(async () => {
    server = await startTestServer();
    url = connectionStringOf(server.db)!;
  });
  afterAll(async () => {
    await server.close();
  });

  /** A listener recording what it hears and its ups and downs. */
  function listen() {
    const heard: Change[] = [];
    const events: string[] = [];
    const listener = new ChangeListener(url, {
      onChange: (c) => heard.push(c),
      onUp: () => events.push('up'),
      onDown: () => events.push('down'),
    });
    return { listener, heard, events };
  }

  /** A new store, its public premium on a subtotal of 100, and a way to set its fixed shipping price in `trx`. */
  async function pricedStore(domain: string) {
    const store = await createStore(server.db, { name: domain, domain });
    const premium = async () =>
      answered(await server.api().public.getInsurance({ query: { storeId: store.id, subtotal: 100 } }), 200).quote
        ?.premium;
    const setPrice = (trx: Db, amount: number) =>
      trx
        .updateTable('pricingRuleSets')
        .set({
          rules: JSON.stringify([{ id: 'ru_p', min: 0, max: 500, terms: { customer: { amount, type: 'fixed' } } }]),
        })
        .where('storeId', '=', store.id)
        .where('type', '=', 'SHIPPING')
        .execute();
    return { store, premium, setPrice };
  }

  it('delivers an announcement when its transaction commits, and nothing for a rollback', async () => {
    const { listener, heard } = listen();
    try {
      await expect.poll(() => listener.listening).toBe(true);
      await transact(server.db, async (trx) => {
        await announceStoreChange(trx, 'st_rolled_back');
        throw new Error('roll back');
      }).catch(() => {});
      await transact(server.db, (trx) => announceStoreChange(trx, 'st_committed'));
      await expect.poll(() => heard.length).toBe(1);
      // The rolled-back one came first; had it been sent it would be here by now.
      await new Promise((r) => setTimeout(r, 100));
      expect(heard).toEqual([{ kind: 'store', storeId: 'st_committed', id: expect.any(String) }]);
    } finally {
      await listener.stop();
    }
  });

  it('says when its connection drops, re-subscribes by itself, and hears again', async () => {
    const { listener, heard, events } = listen();
    try {
      await expect.poll(() => listener.listening).toBe(true);
      await sql`select pg_terminate_backend(pid) from pg_stat_activity
                where application_name = 'protection-service-listener' and datname = current_database()`.execute(
        server.db,
      );
      await expect.poll(() => events.includes('down'), { timeout: 3_000 }).toBe(true);
      await expect.poll(() => events.filter((e) => e === 'up').length, { timeout: 5_000 }).toBe(2);
      await transact(server.db, (trx) => announceStoreChange(trx, 'st_after'));
      await expect.poll(() => heard).toContainEqual({ kind: 'store', storeId: 'st_after', id: expect.any(String) });
    } finally {
      await listener.stop();
    }
    expect(listener.listening).toBe(false);
  });

  it("the server's own listener comes back after a drop, and writes are visible again within 2 s", async () => {
    const { store, premium, setPrice } = await pricedStore('drop.example.com');
    expect(await premium()).toBe(2);
    const listeners = await sql<{ pid: number }>`select pid from pg_stat_activity
              where application_name = 'protection-service-listener' and datname = current_database()`.execute(
      server.db,
    );
    const old = listeners.rows.map((r) => r.pid);
    expect(old.length).toBeGreaterThan(0);
    await sql`select pg_terminate_backend(pid) from unnest(${old}::int[]) as pid`.execute(server.db);
    // Once it has reconnected and listens again (its backoff starts at 100 ms; a busy machine
    // takes longer), change the price through the domain.
    await expect
      .poll(
        async () =>
          (
            await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
              where application_name = 'protection-service-listener' and datname = current_database()
                and pid <> all(${old}::int[]) and query ilike 'listen %'`.execute(server.db)
          ).rows[0]!.n,
        { timeout: 30_000 },
      )
      .toBeGreaterThan(0);
    await transact(server.db, async (trx) => {
      await setPrice(trx, 9);
      await announceStoreChange(trx, store.id);
    });
    await expect.poll(premium, { timeout: 2_000, interval: 20 }).toBe(9);
  });

  it('notifies after the commit, never inside the transaction', async () => {
    const statements: string[] = [];
    const db = createDb(url, { max: 1, onQuery: (text) => statements.push(text.trim().toLowerCase()) });
    try {
      await transact(db, (trx) => announceStoreChange(trx, 'st_order_of_statements'));
      const notify = statements.findIndex((t) => t.includes('pg_notify'));
      const commit = statements.indexOf('commit');
      expect(statements[0]).toBe('begin');
      expect(commit).toBeGreaterThan(0);
      expect(notify).toBeGreaterThan(commit);
    } finally {
      await db.destroy();
    }
  });

  it('a store change whose notification never came reaches the cached answers within about a second', async () => {
    const { store, premium, setPrice } = await pricedStore('lost-notification.example.com');
    expect(await premium()).toBe(2);
    // What a process dying between its commit and its notification leaves: the change and its row.
    await server.db.transaction().execute(async (trx) => {
      await setPrice(trx, 7);
      await trx.insertInto('storeChanges').values({ storeId: store.id }).execute();
    });
    // The listener is up, so entries live an hour: only the feed can drop this one.
    await expect.poll(premium, { timeout: 3_000, interval: 50 }).toBe(7);
  });

  it('the store-change feed applies each change once, heard or read', async () => {
    const dropped: string[] = [];
    const feed = new StoreChangeFeed(server.db, (storeId) => dropped.push(storeId), 100);
    try {
      await feed.read();
      const row = await server.db
        .insertInto('storeChanges')
        .values({ storeId: 'st_feed_once' })
        .returning('id')
        .executeTakeFirstOrThrow();
      feed.apply('st_feed_once', String(row.id)); // as the notification would
      await server.db.insertInto('storeChanges').values({ storeId: 'st_feed_read' }).execute();
      await expect.poll(() => dropped.includes('st_feed_read')).toBe(true);
      await new Promise((r) => setTimeout(r, 400));
      expect(dropped.filter((s) => s === 'st_feed_once')).toHaveLength(1);
      expect(dropped.filter((s) => s === 'st_feed_read')).toHaveLength(1);
    } finally {
      feed.stop();
    }
  });

  it('a revocation feed re-read on demand sees a revocation at once, whatever its interval', async () => {
    const feed = new RevocationFeed(server.db, 3_600_000);
    try {
      await feed.ready;
      await recordRevocation(server.db, 'token', 'jti-on-demand', new Date(Date.now() + 60_000));
      expect(feed.isRevoked({ token: 'jti-on-demand' })).toBe(false);
      await feed.refresh();
      expect(feed.isRevoked({ token: 'jti-on-demand' })).toBe(true);
    } finally {
      feed.stop();
    }
  });
});

describe('public read cache', () => {
  const cache = () =>
    new PublicReadCache(
      ['/v1/quote/insurance'],
      () => {},
      { publicCacheLookup: () => {} } as unknown as ServiceMetrics,
      () => ({
        allowed: true,
        limit: 1,
        remaining: 1,
        resetS: 1,
      }),
    );

  it('lives an hour while listening and seconds otherwise; drops everything coming up, keeps a minute going down', () => {
    const c = cache();
    expect(c.store.lifetimeMs).toBe(STORE_CACHE_SHORT_TTL_MS);
    c.remember('/a', {}, { x: 1 }, 'st_1', c.mark);
    c.store.setLongLived(true);
    expect(c.store.stats.entries).toBe(0);
    expect(c.store.lifetimeMs).toBe(STORE_CACHE_LONG_TTL_MS);
    c.remember('/a', {}, { x: 1 }, 'st_1', c.mark);
    const lostAt = Date.now();
    c.store.setLongLived(false, lostAt);
    expect(c.store.lifetimeMs).toBe(STORE_CACHE_SHORT_TTL_MS);
    // D46: through an outage the cached answer still serves, for a minute at most.
    const key = c.keyOf('/a', {}, lostAt);
    expect(c.store.get(key)).toBeDefined();
    expect(c.store.get(key, lostAt + STORE_CACHE_KEPT_WHEN_LOST_MS - 1)).toBeDefined();
    expect(c.store.get(key, lostAt + STORE_CACHE_KEPT_WHEN_LOST_MS)).toBeUndefined();
  });

  it("drops exactly one store's answers, and keeps no answer read before an invalidation", () => {
    const c = cache();
    c.remember('/a', {}, { x: 1 }, 'st_1', c.mark);
    c.remember('/b', {}, { x: 2 }, 'st_2', c.mark);
    const before = c.mark;
    c.store.invalidateStore('st_1');
    expect(c.store.stats.entries).toBe(1);
    c.remember('/c', {}, { x: 3 }, 'st_2', before);
    expect(c.store.stats.entries).toBe(1);
  });

  it('is bounded in entries and bytes whatever is put in it', () => {
    const t = new TtlCache<string>((k, v) => k.length + v.length, 3, 100);
    for (let i = 0; i < 10; i++) t.set(`k${i}`, 'v', 1000);
    expect(t.size).toBe(3);
    t.set('big', 'x'.repeat(60), 1000);
    t.set('big2', 'x'.repeat(30), 1000);
    expect(t.totalBytes).toBeLessThanOrEqual(100);
    t.set('huge', 'x'.repeat(200), 1000);
    expect(t.get('huge')).toBeUndefined();
    expect(t.totalBytes).toBeLessThanOrEqual(100);
    const c = cache();
    for (let i = 0; i < 12_000; i++) c.remember(`/v1/quote/insurance?n=${i}`, {}, { i }, 'st', c.mark);
    expect(c.store.stats.entries).toBeLessThanOrEqual(10_000);
  });
});

/** GET /v2/settings answers from memory per store until the store announces a change (D29). */
describe('the merchant settings answer, cached', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('keeps the answer until a change of its store is announced', async () => {
    const owner = await createOwner(server.db, 'cached-settings');
    const app = await createApp(server, owner.user.id, { requestedScopes: ['store:read'] });
    const { accessToken } = await installWithToken(server, app.clientId, owner.store.id, ['store:read']);
    // A second store, installed after: its changes are heard after this store's install's.
    const other = await createOwner(server.db, 'cached-settings-other');
    const otherToken = (await installWithToken(server, app.clientId, other.store.id, ['store:read'])).accessToken;
    const bonusOf = (token: string) => async () =>
      answered(await server.api(token).settings.get(), 200).data.storeCreditBonus;
    const bonus = bonusOf(accessToken);
    const setBonus = (trx: Db, storeId: string, value: number) =>
      trx.updateTable('merchantSettings').set({ storeCreditBonus: value }).where('storeId', '=', storeId).execute();
    // Answers are kept long only while the server listens for changes, and all are dropped when
    // it starts to (D29); and the install announced a change of this store, which a busy
    // machine may hear after a first read. So the reads start once it listens, and once the
    // other store's announced change is seen: every change announced before it was heard.
    await expect
      .poll(
        async () =>
          (
            await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
              where application_name = 'protection-service-listener' and datname = current_database()
                and state = 'idle' and query ilike 'listen %'`.execute(server.db)
          ).rows[0]!.n,
      )
      .toBeGreaterThan(0);
    expect(await bonusOf(otherToken)()).toBe(0);
    await transact(server.db, async (trx) => {
      await setBonus(trx, other.store.id, 3);
      await announceStoreChange(trx, other.store.id);
    });
    await expect.poll(bonusOf(otherToken)).toBe(3);
    expect(await bonus()).toBe(0);
    await setBonus(server.db, owner.store.id, 7);
    // Written without an announcement: the cached answer stands (no query per request).
    expect(await bonus()).toBe(0);
    await transact(server.db, (trx) => announceStoreChange(trx, owner.store.id));
    await expect.poll(bonus, { timeout: 5_000 }).toBe(7);
  });
});
