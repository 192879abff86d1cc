import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluatePackageNow, sweepTracking } from '../../src/domain/tracking-claims/evaluate';
import { type ClaimStore, claimStore } from '../harness/claims';
import { bearer } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

const DAY = 86_400_000;
// Shipped two days ago: the sweeps below run as of days after, past the lost rule's 7 days.
const SHIPPED = new Date(Math.floor(Date.now() / 1000) * 1000 - 2 * DAY);
const at = (days: number) => new Date(SHIPPED.getTime() + days * DAY);

/**
 * D54's sweep over every store's packages still under way, read in keyset batches (a batch size
 * of 2 or 3 here, so every sweep takes several reads), each package in its own evaluation.
 */
describe('the tracking sweep (D54)', () => {
  let server: TestServer;
  let filing: ClaimStore;
  let off: ClaimStore;
  let n = 0;
  /** The SQL of every query the server's pool ran, to count the sweep's reads of a batch. */
  const queries: string[] = [];
  const batchReads = () => queries.filter((q) => /from tracking_packages\s+where order_id is not null/.test(q)).length;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 }, onQuery: (q) => queries.push(q) });
    filing = await claimStore(server, 'sweep-file');
    off = await claimStore(server, 'sweep-off');
    for (const [store, mode] of [
      [filing, 'file'],
      [off, 'off'],
    ] as const) {
      await sql`
        insert into tracking_settings (store_id, mode, lost_no_movement_days, lost_after_estimated_days, delayed_enabled,
          delayed_after_estimated_days, claim_window_days, resolution_requested)
        values (${store.owner.store.id}, ${mode}, 7, 2, false, 1, 45, 'REFUND')
      `.execute(server.db);
    }
  });
  afterAll(() => server?.close());

  /** A protected order of the store whose one fulfillment is a package scanned at SHIPPED (or delivered then). */
  async function shipped(store: ClaimStore, status: 'IN_TRANSIT' | 'DELIVERED' = 'IN_TRANSIT') {
    const sourceOrderId = `o-sweep-${++n}`;
    await store.putOrder(sourceOrderId, { premiumPaid: 2.5, lineItems: [{ sourceItemId: 'mug', quantity: 1 }] });
    const res = await server.request(`/v1/orders/${sourceOrderId}/fulfillments/f-1`, {
      method: 'PUT',
      headers: bearer(store.token),
      json: { fulfillmentStatus: status, trackingNumber: [`SW${n}`], updatedAt: SHIPPED.toISOString() },
    });
    expect(res.status).toBe(200);
    const pkg = await sql<{ id: string }>`
      select p.id from tracking_packages p join orders o on o.id = p.order_id
      where o.store_id = ${store.owner.store.id} and o.source_order_id = ${sourceOrderId}
    `.execute(server.db);
    return { sourceOrderId, packageId: pkg.rows[0]!.id };
  }
  const many = (store: ClaimStore, count: number) => Promise.all(Array.from({ length: count }, () => shipped(store)));

  /** The decisions of a package written as of a moved time (the ingest's job, as of the clock, never ran). */
  const decisionsOf = async (packageId: string) =>
    (
      await sql<{ rule: string | null; action: string; reason: string; claimId: string | null }>`
        select rule, action, reason, claim_id from tracking_decisions where package_id = ${packageId} order by id
      `.execute(server.db)
    ).rows;
  const claimsOf = async (store: ClaimStore, sourceOrderId: string) =>
    (
      await sql<{ id: string; claimType: string; externalSource: string }>`
        select id, claim_type, external_source from claims
        where store_id = ${store.owner.store.id} and source_order_id = ${sourceOrderId}
      `.execute(server.db)
    ).rows;

  it("files the lost packages of a file-mode store, skips an off store's once, and never reads delivered or claimed ones", async () => {
    const lost = await many(filing, 4);
    const delivered = await shipped(filing, 'DELIVERED');
    const claimed = await shipped(filing);
    expect(await evaluatePackageNow(server.db, claimed.packageId, at(8), 'changed')).toMatchObject({ action: 'filed' });
    const quiet = await many(off, 3);

    queries.length = 0;
    // Seven packages under way, two a read: four reads (2, 2, 2, 1).
    expect(await sweepTracking(server.db, at(8), 2)).toEqual({ evaluated: 7, failed: 0 });
    expect(batchReads()).toBe(4);
    for (const p of lost) {
      const [claim, ...more] = await claimsOf(filing, p.sourceOrderId);
      expect(more).toEqual([]);
      expect(claim).toMatchObject({ claimType: 'LOST_IN_TRANSIT', externalSource: 'tracking' });
      expect(await decisionsOf(p.packageId)).toEqual([
        expect.objectContaining({ rule: 'lost', action: 'filed', claimId: claim!.id }),
      ]);
    }
    for (const p of quiet) {
      expect(await decisionsOf(p.packageId)).toEqual([
        { rule: null, action: 'skipped', reason: 'tracking rules are off for the store', claimId: null },
      ]);
      expect(await claimsOf(off, p.sourceOrderId)).toEqual([]);
    }
    // Not read: a delivered package has no decision at all, a claimed one only the evaluation that filed.
    expect(await decisionsOf(delivered.packageId)).toEqual([]);
    expect((await decisionsOf(claimed.packageId)).map((d) => d.action)).toEqual(['filed']);

    // The next sweep reads only the off store's three (the lost ones have their claims) and,
    // their outcome unchanged, writes nothing (D54).
    queries.length = 0;
    expect(await sweepTracking(server.db, at(9), 2)).toEqual({ evaluated: 3, failed: 0 });
    expect(batchReads()).toBe(2);
    for (const p of quiet) expect(await decisionsOf(p.packageId)).toHaveLength(1);
    for (const p of lost) expect(await claimsOf(filing, p.sourceOrderId)).toHaveLength(1);
  });

  it('two sweeps at once file one claim per package', async () => {
    const lost = await many(filing, 5);
    const [a, b] = await Promise.all([sweepTracking(server.db, at(8), 2), sweepTracking(server.db, at(8), 3)]);
    expect([a.failed, b.failed]).toEqual([0, 0]);
    for (const p of lost) {
      const claims = await claimsOf(filing, p.sourceOrderId);
      expect(claims).toHaveLength(1);
      const decisions = await decisionsOf(p.packageId);
      expect(decisions.filter((d) => d.action === 'filed')).toEqual([
        expect.objectContaining({ rule: 'lost', claimId: claims[0]!.id }),
      ]);
      // A sweep that came second found the claim: the same rule again says nothing new.
      expect(decisions.every((d) => d.action === 'filed' || d.action === 'skipped')).toBe(true);
    }
  });

  it('a package whose evaluation fails is counted, the rest are evaluated, and the next sweep tries it again', async () => {
    const [broken, fine] = await many(off, 2);
    // The database refuses the broken package's decision, so its evaluation's transaction fails.
    await sql`
      create function refuse_decision() returns trigger language plpgsql as $$
      begin raise exception 'decision refused'; end $$
    `.execute(server.db);
    await sql`
      create trigger refuse_decision before insert on tracking_decisions for each row
      when (new.package_id = ${sql.lit(broken!.packageId)}) execute function refuse_decision()
    `.execute(server.db);
    const outcome = await sweepTracking(server.db, at(8), 2);
    expect(outcome).toMatchObject({ failed: 1, firstError: expect.objectContaining({ message: 'decision refused' }) });
    expect(outcome.evaluated).toBeGreaterThanOrEqual(1);
    expect(await decisionsOf(broken!.packageId)).toEqual([]);
    expect(await decisionsOf(fine!.packageId)).toEqual([expect.objectContaining({ action: 'skipped' })]);

    await sql`drop trigger refuse_decision on tracking_decisions`.execute(server.db);
    expect((await sweepTracking(server.db, at(8), 2)).failed).toBe(0);
    expect(await decisionsOf(broken!.packageId)).toEqual([expect.objectContaining({ action: 'skipped' })]);
    expect(await decisionsOf(fine!.packageId)).toHaveLength(1);
  });
});
