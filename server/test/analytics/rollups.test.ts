import { CLAIM_QUEUES } from '@protection-service/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database';
import {
  countedRows,
  foldInProgress,
  foldRollups,
  type Rollup,
  rollupRows as readerRows,
  rollupWatermark,
  unfoldedRollups,
} from '../../src/domain/analytics/rollups';
import { CLAIM_TEST_SCOPES, type ClaimStore, claimStore } from '../harness/claims';
import { answered, createTestStoreOf, installWithToken } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D52: the day rollups the summary adds up are kept by the writes themselves. After a mix of
 * writes through the API and by hand (orders created, moved to another day and currency,
 * unprotected, cancelled and deleted; claims filed, decided, paid, backdated and
 * soft-deleted; a change rolled back), they must equal the figures counted from scratch from
 * the rows, day by day, before and after a fold.
 */
describe('analytics day rollups (D52)', () => {
  let server: TestServer;
  let s: ClaimStore;

  /**
   * What the rollups hold for the store, summed over their slots, with what changed since the
   * last fold (or, `days`, the day rows alone), zero rows left out.
   */
  const rolled = async (storeId: string, db: Db = server.db, read: 'all' | 'days' = 'all') => {
    const rollupRows = (table: Rollup) => (read === 'all' ? readerRows(table) : sql.table(table));
    const orders = await sql<Record<string, string>>`
      select to_char(day, 'YYYY-MM-DD') as day, currency, sum(orders)::text as orders,
        sum(protected_orders)::text as protected, sum(premiums)::numeric(20, 4)::text as premiums
      from ${rollupRows('analytics_order_days')} r where store_id = ${storeId} group by 1, 2
      having sum(orders) <> 0 or sum(protected_orders) <> 0 or sum(premiums) <> 0 order by 1, 2`.execute(db);
    const claims = await sql<Record<string, string>>`
      select to_char(day, 'YYYY-MM-DD') as day, sum(claims)::text as claims, sum(decided)::text as decided,
        sum(approved)::text as approved
      from ${rollupRows('analytics_claim_days')} r where store_id = ${storeId} group by 1
      having sum(claims) <> 0 or sum(decided) <> 0 or sum(approved) <> 0 order by 1`.execute(db);
    const paid = await sql<Record<string, string>>`
      select to_char(day, 'YYYY-MM-DD') as day, resolution_type, currency, sum(resolutions)::text as resolutions,
        sum(amount)::numeric(20, 4)::text as amount
      from ${rollupRows('analytics_paid_days')} r where store_id = ${storeId} group by 1, 2, 3
      having sum(resolutions) <> 0 or sum(amount) <> 0 order by 1, 2, 3`.execute(db);
    return { orders: orders.rows, claims: claims.rows, paid: paid.rows };
  };

  /** The same figures counted from the rows, as the summary did before it had rollups. */
  const counted = async (storeId: string) => {
    const orders = await sql<Record<string, string>>`
      with o as (
        select (o.source_created_at at time zone 'UTC')::date as day, o.currency, pp.premium_currency,
          pp.premium_paid, pp.id is not null as protected
        from orders o left join protection_policies pp
          on pp.order_id = o.id and pp.removed_at is null and pp.deleted_at is null
        where o.store_id = ${storeId} and o.deleted_at is null
      ), parts as (
        select day, currency, 1 as orders, 0 as protected, 0 as premium from o
        union all
        select day, coalesce(premium_currency, currency), 0, 1, premium_paid from o where protected
      )
      select to_char(day, 'YYYY-MM-DD') as day, currency, sum(orders)::text as orders,
        sum(protected)::text as protected, sum(premium)::numeric(20, 4)::text as premiums
      from parts group by 1, 2 order by 1, 2`.execute(server.db);
    const claims = await sql<Record<string, string>>`
      with c as (
        select (c.created_at at time zone 'UTC')::date as day, (
          select to_state from claim_state_changes
          where claim_id = c.id and to_state in ('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND', 'DENIED', 'DISMISSED')
          order by id limit 1
        ) as decision
        from claims c where c.store_id = ${storeId} and c.deleted_at is null
      )
      select to_char(day, 'YYYY-MM-DD') as day, count(*)::text as claims, count(decision)::text as decided,
        count(*) filter (where decision in ('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND'))::text as approved
      from c group by 1 order by 1`.execute(server.db);
    const paid = await sql<Record<string, string>>`
      select to_char((r.created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, r.resolution_type,
        coalesce(r.paid_currency, o.currency) as currency, count(*)::text as resolutions,
        sum(r.paid_value)::numeric(20, 4)::text as amount
      from claim_resolutions r join claims c on c.id = r.claim_id join orders o on o.id = c.order_id
      where c.store_id = ${storeId} and c.deleted_at is null and r.deleted_at is null and r.paid_value is not null
      group by 1, 2, 3 order by 1, 2, 3`.execute(server.db);
    return { orders: orders.rows, claims: claims.rows, paid: paid.rows };
  };

  /**
   * Folds until nothing is left unfolded, answering what those folds recounted: a fold stops
   * below the oldest transaction still running anywhere on the server (other test files
   * share it), so a fold can leave part for the next.
   */
  const foldRest = async () => {
    let folded = 0;
    for (let i = 0; i < 100 && (await unfoldedRollups(server.db)) > 0; i++) {
      folded += await foldRollups(server.db);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await unfoldedRollups(server.db)).toBe(0);
    return folded;
  };

  /**
   * The median hours to a first decision as the summary reads it (the claim ledger's hours, with
   * what changed since the fold read from the rows) and counted from scratch: the same.
   */
  const sameMedian = async (storeId: string) => {
    const read = countedRows('analytics_claim_days', await rollupWatermark(server.db));
    const { rows } = await sql<{ read: string | null; counted: string | null }>`
      select
        (select (percentile_cont(0.5) within group (order by decision_hours))::text
         from ${read} r where store_id = ${storeId} and decision_hours is not null) as read,
        (select (percentile_cont(0.5) within group (order by extract(epoch from d.created_at - c.created_at) / 3600))::text
         from claims c join lateral (
           select created_at from claim_state_changes
           where claim_id = c.id and to_state in ('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND', 'DENIED', 'DISMISSED')
           order by id limit 1
         ) d on true
         where c.store_id = ${storeId} and c.deleted_at is null) as counted`.execute(server.db);
    expect(rows[0]!.read).toBe(rows[0]!.counted);
    return rows[0]!.counted;
  };

  const agree = async (storeId: string) => {
    const expected = await counted(storeId);
    expect(await rolled(storeId)).toEqual(expected);
    await sameMedian(storeId);
    return expected;
  };

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    s = await claimStore(server, 'rollups', [...CLAIM_TEST_SCOPES, 'analytics:read']);
  });
  afterAll(async () => {
    await server.close();
  });

  it('equal the figures counted from the rows after a mix of writes', async () => {
    const storeId = s.owner.store.id;
    const day = (d: number, time = '09:00:00') => `2026-05-0${d}T${time}Z`;
    await s.putOrder('p1', { sourceCreatedAt: day(1), premiumPaid: 2.5 });
    await s.putOrder('p2', { sourceCreatedAt: day(1, '23:59:59'), premiumPaid: 1.25, currency: 'EUR' });
    await s.putOrder('p3', { sourceCreatedAt: day(2), premiumPaid: 0.99 });
    await s.putOrder('u1', { sourceCreatedAt: day(2) });
    await s.putOrder('u2', { sourceCreatedAt: day(3), currency: 'EUR' });
    // Replaced whole: another day, another currency, another premium; then unprotected, cancelled, protected again.
    await s.putOrder('p1', { sourceCreatedAt: day(3), premiumPaid: 3, currency: 'EUR' });
    await s.putOrder('p3', { sourceCreatedAt: day(2) });
    await s.putOrder('u1', { sourceCreatedAt: day(2), premiumPaid: 4, policyCancelledAt: day(2, '10:00:00') });
    await s.putOrder('u2', { sourceCreatedAt: day(3), premiumPaid: 0.5, currency: 'EUR' });
    await s.putOrder('gone', { sourceCreatedAt: day(1), premiumPaid: 9 });
    answered(await s.api.orders.remove({ params: { sourceOrderId: 'gone' } }), 200);

    await s.putOrder('c1', { sourceCreatedAt: day(1), premiumPaid: 1 });
    await s.putOrder('c2', { sourceCreatedAt: day(1), premiumPaid: 1 });
    await s.putOrder('c3', { sourceCreatedAt: day(1), premiumPaid: 1 });
    await s.putOrder('c4', { sourceCreatedAt: day(1), premiumPaid: 1 });
    const approved = await s.fileId('c1');
    answered(
      await s.api.claims.approve({
        params: { claimId: approved },
        body: { resolutions: [{ type: 'REFUND', paidValue: 10.1 }] },
      }),
      200,
    );
    const denied = await s.fileId('c2');
    answered(await s.api.claims.deny({ params: { claimId: denied }, body: { reason: 'NOT_COVERED' } }), 200);
    // A later approval does not change the first decision.
    await sql`insert into claim_state_changes (claim_id, from_state, to_state) values (${denied}, 'DENIED', 'APPROVED')`.execute(
      server.db,
    );
    const open = await s.fileId('c3');
    answered(await s.api.claims.transition({ params: { claimId: open }, body: { claimState: 'OPEN' } }), 200);
    const dropped = await s.fileId('c4');
    answered(
      await s.api.claims.approve({
        params: { claimId: dropped },
        body: { resolutions: [{ type: 'STORE_CREDIT', paidValue: 5 }] },
      }),
      200,
    );
    await agree(storeId);
    // Folded: what follows is recounted against the ledger of what was counted so far.
    await foldRest();
    expect(await rolled(storeId, server.db, 'days')).toEqual(await agree(storeId));

    // By hand: a claim filed on another day, a resolution paid later and in another
    // currency, a soft-deleted claim, an order whose currency changes under a resolution
    // that names none.
    await sql`update claims set created_at = '2026-04-20T08:00:00Z' where id = ${approved}`.execute(server.db);
    await sql`update claim_resolutions set created_at = '2026-05-09T08:00:00Z', paid_currency = 'EUR'
      where claim_id = ${approved}`.execute(server.db);
    await sql`update claims set deleted_at = now() where id = ${dropped}`.execute(server.db);
    await sql`update claim_resolutions set paid_currency = null where claim_id = ${denied}`.execute(server.db);
    await sql`insert into claim_resolutions (id, claim_id, position, resolution_type, paid_value, claim_state)
      values ('res_rollup_1', ${denied}, 9, 'RESHIP', 7.25, 'APPROVED')`.execute(server.db);
    await sql`update orders set currency = 'CAD' where store_id = ${storeId} and source_order_id = 'c2'`.execute(
      server.db,
    );
    // Rows moved to another parent: a live policy to an unprotected order, the denial to the
    // open claim (the denied claim's first decision is then its later approval).
    const orderOf = async (id: string) =>
      (
        await sql<{
          id: string;
        }>`select id from orders where store_id = ${storeId} and source_order_id = ${id} and deleted_at is null`.execute(
          server.db,
        )
      ).rows[0]!.id;
    await sql`update protection_policies set order_id = ${await orderOf('p3')}
      where order_id = ${await orderOf('p2')} and removed_at is null`.execute(server.db);
    await sql`update claim_state_changes set claim_id = ${open} where claim_id = ${denied} and to_state = 'DENIED'`.execute(
      server.db,
    );
    const expected = await agree(storeId);
    expect(expected.paid).toContainEqual(expect.objectContaining({ resolutionType: 'RESHIP', currency: 'CAD' }));
    expect(expected.claims.map((c) => c.day)).toContain('2026-04-20');

    // A change that rolls back leaves the rollups as they were.
    const before = await rolled(storeId);
    await expect(
      server.db.transaction().execute(async (trx) => {
        await sql`insert into orders (id, store_id, source_order_id, source_order_number, currency, source_created_at, platform_id, total)
          values ('ord_rollback', ${storeId}, 'rb', '#rb', 'USD', ${day(1)}, 'api', 1)`.execute(trx);
        await sql`insert into protection_policies (id, store_id, order_id, premium_paid, customer_amount, insured_amount)
          values ('pol_rollback', ${storeId}, 'ord_rollback', 3, 3, 1)`.execute(trx);
        await sql`update claims set deleted_at = now() where id = ${open}`.execute(trx);
        await sql`insert into claim_state_changes (claim_id, from_state, to_state) values (${open}, 'OPEN', 'DENIED')`.execute(
          trx,
        );
        expect(await rolled(storeId, trx)).not.toEqual(before);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await rolled(storeId)).toEqual(before);

    // The served figures are the rollups' (D52).
    const summary = answered(
      await s.api.analytics.summary({ query: { from: '2026-04-01', to: '2026-12-31' } }),
      200,
    ).data;
    // Decided: c1 approved, c2 approved (its denial moved away), c3 denied (the denial moved in).
    expect(summary).toMatchObject({ orders: 9, protectedOrders: 7, claims: 3, approvalRate: 0.6667 });
  });

  it('fold what changed into the day rows without changing a figure, however many folds run at once', async () => {
    const storeId = s.owner.store.id;
    // The writes above by hand changed orders, claims and resolutions since they were folded
    // (no delivering process here folds them).
    const changed = await unfoldedRollups(server.db);
    expect(changed).toBeGreaterThan(5);
    const before = await rolled(storeId);
    // A fold counts up to the oldest transaction still open in the whole cluster, and the test
    // files' databases share one: once every transaction open at the writes above has ended
    // (the xmin past an id taken after them), one fold can count them all.
    const after = (await sql<{ x: string }>`select pg_current_xact_id()::text as x`.execute(server.db)).rows[0]!.x;
    await expect
      .poll(
        async () =>
          (
            await sql<{
              past: boolean;
            }>`select pg_snapshot_xmin(pg_current_snapshot()) > ${after}::xid8 as past`.execute(server.db)
          ).rows[0]!.past,
      )
      .toBe(true);
    // Three at once: one moves the watermark and recounts; the others fold nothing.
    const folded = await Promise.all([foldRollups(server.db), foldRollups(server.db), foldRollups(server.db)]);
    expect(folded.filter((n) => n > 0)).toHaveLength(1);
    expect(folded.reduce((a, b) => a + b, 0) + (await foldRest())).toBe(changed);
    expect(await rolled(storeId)).toEqual(before);
    // Folded, the day rows alone hold the figures counted from scratch.
    expect(await rolled(storeId, server.db, 'days')).toEqual(await agree(storeId));
    // A write after the fold is read at once, and a second fold adds it to the same day rows.
    await s.putOrder('after-fold', { sourceCreatedAt: '2026-05-01T12:00:00Z', premiumPaid: 2 });
    expect(await unfoldedRollups(server.db)).toBe(1);
    await agree(storeId);
    expect((await foldRollups(server.db)) + (await foldRest())).toBe(1);
    expect(await rolled(storeId, server.db, 'days')).toEqual(await agree(storeId));
    // A change rolled back after the fold read it changes nothing the next fold counts.
    await expect(
      server.db.transaction().execute(async (trx) => {
        await sql`update orders set source_created_at = '2026-03-01T00:00:00Z' where store_id = ${storeId}
          and source_order_id = 'after-fold'`.execute(trx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await foldRollups(server.db);
    await foldRest();
    expect(await rolled(storeId, server.db, 'days')).toEqual(await agree(storeId));
  });

  it('fold in rounds of a few things each, every figure exact between the rounds, writes between them too', async () => {
    const storeId = s.owner.store.id;
    await foldRest();
    const placed = (i: number) => `2026-06-0${(i % 3) + 1}T08:00:00Z`;
    for (let i = 1; i <= 7; i++)
      await s.putOrder(`round-${i}`, {
        sourceCreatedAt: placed(i),
        premiumPaid: i % 2 ? 1.5 : 0,
        currency: i % 2 ? 'USD' : 'EUR',
      });
    // Every claim of the store filed a day earlier: each claim and each of its resolutions changed.
    await sql`update claims set created_at = created_at - interval '1 day' where store_id = ${storeId}`.execute(
      server.db,
    );
    let expected = await agree(storeId);
    // One round per call, two things per day table each: a fold of several short transactions.
    let inProgress = 0;
    for (let round = 0; round < 200 && (inProgress === 0 || (await foldInProgress(server.db))); round++) {
      if ((await foldRollups(server.db, { limit: 2, budgetMs: 0 })) === 0)
        await new Promise((resolve) => setTimeout(resolve, 50));
      if (!(await foldInProgress(server.db))) continue;
      inProgress++;
      expect(await rolled(storeId)).toEqual(expected);
      if (inProgress === 2) {
        // Between rounds: a thing an earlier round counted changes, and a new one comes.
        await s.putOrder('round-1', { sourceCreatedAt: placed(2), premiumPaid: 0, currency: 'EUR' });
        await s.putOrder('round-8', { sourceCreatedAt: placed(8), premiumPaid: 2 });
        // A first decision an hour later: the median moves, read at once.
        const before = await sameMedian(storeId);
        await sql`update claim_state_changes set created_at = created_at + interval '1 hour'
          where claim_id in (select id from claims where store_id = ${storeId})`.execute(server.db);
        expect(await sameMedian(storeId)).not.toBe(before);
        expected = await agree(storeId);
      }
    }
    expect(inProgress).toBeGreaterThan(2);
    // The rounds went on where they stopped: the fold ended within them, not by the cap.
    expect(await foldInProgress(server.db)).toBe(false);
    expect(await rolled(storeId)).toEqual(expected);
    await foldRest();
    expect(await rolled(storeId, server.db, 'days')).toEqual(await agree(storeId));
  });

  it('refuse a hard delete while the store is there; removing a test store takes its rollups', async () => {
    await s.putOrder('hard', { sourceCreatedAt: '2026-06-01T09:00:00Z', premiumPaid: 1 });
    await expect(
      sql`delete from orders where store_id = ${s.owner.store.id} and source_order_id = 'hard'`.execute(server.db),
    ).rejects.toThrow(/soft-deleted/);
    const test = await createTestStoreOf(server, s.owner.user.id, s.clientId);
    await installWithToken(server, s.clientId, test.id, CLAIM_TEST_SCOPES);
    await sql`insert into orders (id, store_id, source_order_id, source_order_number, currency, source_created_at, platform_id, total)
      values ('ord_test_rollup', ${test.id}, 't', '#t', 'USD', now(), 'api', 1)`.execute(server.db);
    expect((await rolled(test.id)).orders).toHaveLength(1);
    await sql`delete from stores where id = ${test.id}`.execute(server.db);
    expect(await rolled(test.id)).toEqual({ orders: [], claims: [], paid: [] });
  });

  it("the database's claim_queue() names the contract's queue of every state (D51)", async () => {
    const states = Object.entries(CLAIM_QUEUES).flatMap(([queue, of]) => of.map((state) => ({ state, queue })));
    const { rows } = await sql<{ state: string; queue: string }>`
      select s as state, claim_queue(s) as queue from unnest(${states.map((s) => s.state)}::text[]) s`.execute(
      server.db,
    );
    expect(rows).toEqual(states);
  });
});
