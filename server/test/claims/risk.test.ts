import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type TClaimRisk, ZClaimRisk, ZFile, ZTrackingSourceCreated } from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as photoMatchesMigration from '../../../migrations/20261201600000-photo-matches';
import { createDb } from '../../src/db/database';
import { queueClaimRisk } from '../../src/db/risk-queue';
import { recomputePendingRisk } from '../../src/domain/claims/risk/recompute';
import { RISK } from '../../src/domain/claims/risk/signals';
import { fillCentreHashes } from '../../src/domain/files/files';
import { writeAndMatch } from '../../src/domain/files/photo-matches';
import { openFileStorage } from '../../src/domain/files/storage';
import { type ClaimStore, claimBody, claimEvents, claimStore } from '../harness/claims';
import { upload } from '../harness/files';
import { answered, bearer, dashboardTokenFor } from '../harness/fixtures';
import { dataOf, jsonOf } from '../harness/json';
import { cropped, photo, reencoded } from '../harness/photos';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D57: each signal built from real API calls (orders, fulfillments, tracking events, uploads,
 * claims), its threshold's edges, the stores kept apart, and `risk` in every version, the
 * list's filter and `claim/created`. The recompute the delivering processes run once a second
 * is run here by calling it, so a test waits for nothing.
 */
describe('claim risk (D57)', () => {
  let server: TestServer;
  let s: ClaimStore;
  let other: ClaimStore;
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    s = await claimStore(server, 'risk');
    other = await claimStore(server, 'risk-other');
    // missing_photos has its own store: here photos are asked for nothing.
    await noPhotosRequired(s, other);
  });
  afterAll(async () => {
    await server.close();
  });

  async function noPhotosRequired(...stores: ClaimStore[]) {
    for (const store of stores) {
      const done =
        await sql`update merchant_settings set photos_required_for = '{}' where store_id = ${store.owner.store.id}`.execute(
          server.db,
        );
      expect(done.numAffectedRows).toBe(1n);
    }
  }

  const riskOf = async (id: string, store = s): Promise<TClaimRisk> =>
    answered(await store.api.claims.get({ params: { claimId: id } }), 200).risk;
  const codes = async (id: string, store = s) => (await riskOf(id, store)).signals.map((x) => x.code);
  const signal = async (id: string, code: string, store = s) =>
    (await riskOf(id, store)).signals.find((x) => x.code === code);
  /** The recompute the sweep runs, until nothing is pending. */
  const settle = async () => {
    while ((await recomputePendingRisk(server.db)) > 0);
  };

  /** An order with priced line items (price 10 unless told) and fulfillment f-1 of package `tracking`. */
  async function order(store: ClaimStore, opts: { prices?: number[]; tracking?: string } = {}) {
    const sourceOrderId = `o-risk-${++n}`;
    const prices = opts.prices ?? [10];
    const lineItems = prices.map((price, i) => ({ sourceItemId: `li-${i}`, quantity: 10, price }));
    await store.putOrder(sourceOrderId, { lineItems });
    if (opts.tracking) {
      const res = await server.request(`/v1/orders/${sourceOrderId}/fulfillments/f-1`, {
        method: 'PUT',
        headers: bearer(store.token),
        json: {
          fulfillmentStatus: 'CONFIRMED',
          sourceItemIds: lineItems.map((l) => ({ sourceItemId: l.sourceItemId, quantity: 10 })),
          trackingNumber: [opts.tracking],
          updatedAt: new Date(Date.now() - 5 * 86_400_000).toISOString(),
        },
      });
      expect(res.status).toBe(200);
    }
    return sourceOrderId;
  }

  async function trackingEvent(
    store: ClaimStore,
    sourceOrderId: string,
    trackingNumber: string,
    status: string,
    at = new Date(Date.now() - 60_000),
  ) {
    const res = await server.request(`/v1/orders/${sourceOrderId}/fulfillments/f-1/tracking-events`, {
      method: 'POST',
      headers: bearer(store.token),
      json: {
        trackingNumber,
        carrier: 'ups',
        events: [{ id: `${trackingNumber}-${status}`, occurredAt: at.toISOString(), status }],
      },
    });
    expect(res.status).toBeLessThan(300);
  }

  type Issue = { issueType?: string; item?: number; quantity?: number; images?: string[]; fulfillment?: string };
  const file = (store: ClaimStore, sourceOrderId: string, email: string, issue: Issue = {}) =>
    store.fileId(
      sourceOrderId,
      claimBody({
        email,
        fulfillmentIssues: [
          {
            ...(issue.fulfillment ? { sourceFulfillmentId: issue.fulfillment } : {}),
            issues: [
              {
                issueType: (issue.issueType ?? 'DAMAGED') as 'DAMAGED',
                quantity: issue.quantity ?? 1,
                sourceItemId: `li-${issue.item ?? 0}`,
                ...(issue.images ? { images: issue.images } : {}),
              },
            ],
          },
        ],
      }),
    );

  const uploaded = async (store: ClaimStore, bytes: Buffer) => dataOf(await upload(server, store.token, bytes), ZFile);
  /** A stored photo's hashes rewritten (`set`, SQL) and its matches found again from them, as an upload finds them. */
  const rehashed = async (fileId: string, set: RawBuilder<unknown>) => {
    const { storeId } = await server.db
      .selectFrom('files')
      .select('storeId')
      .where('id', '=', fileId)
      .executeTakeFirstOrThrow();
    await writeAndMatch(server.db, storeId, fileId, async (trx) => {
      await sql`delete from file_matches where file_id = ${fileId} or match_id = ${fileId}`.execute(trx);
      await sql`update files set ${set} where id = ${fileId}`.execute(trx);
    });
  };

  it('a shopper with three claims: the third says repeat_claimer, and after the recompute so do the first two', async () => {
    const email = 'Repeat@Example.com';
    const first = await file(s, await order(s), email);
    const second = await file(s, await order(s), email.toLowerCase());
    // One other claim: below the threshold.
    expect(await codes(second)).toEqual([]);
    const third = await file(s, await order(s), email);
    // Exactly two others: the signal, naming them.
    expect(await signal(third, 'repeat_claimer')).toEqual({
      code: 'repeat_claimer',
      detail:
        'The same e-mail or shipping address is on 2 other claims of this store filed within 180 days of this one.',
      relatedClaimIds: [first, second],
    });
    expect((await riskOf(third)).level).toBe('medium');
    await settle();
    expect((await signal(first, 'repeat_claimer'))?.relatedClaimIds).toEqual([second, third]);
    const fourth = await file(s, await order(s), email);
    // Three others: above, still the signal.
    expect((await signal(fourth, 'repeat_claimer'))?.relatedClaimIds).toEqual([first, second, third]);
  });

  it('counts claims within 180 days of this one, not 181', async () => {
    const email = 'window@example.com';
    const a = await file(s, await order(s), email);
    const b = await file(s, await order(s), email);
    const c = await file(s, await order(s), email);
    const backdate = (id: string, days: number) =>
      sql`update claims set created_at = now() - make_interval(days => ${days}) where id = ${id}`.execute(server.db);
    const recompute = async () => {
      await sql`insert into claim_risk_pending (claim_id) values (${c}) on conflict do nothing`.execute(server.db);
      await settle();
      return (await signal(c, 'repeat_claimer'))?.relatedClaimIds ?? [];
    };
    await backdate(a, 179);
    await backdate(b, 180);
    expect(await recompute()).toEqual([b, a]);
    await backdate(b, 181);
    expect(await recompute()).toEqual([]);
  });

  it('a shipping address on offline claims counts as the e-mail does', async () => {
    const offline = (email: string, address1: string) =>
      s.post('/v1/claims/offline', {
        customer: { email },
        claimCategory: 'WARRANTY',
        salesChannel: 'IN_STORE',
        items: [{ name: 'Kettle', price: 20 }],
        warranty: { dateOfPurchase: '2026-10-01' },
        shippingAddress: { address1, city: 'Springfield', zip: '12345', countryAbr: 'US' },
      });
    const ids: string[] = [];
    for (const [email, address] of [
      ['a1@example.com', '1 Elm Street'],
      ['a2@example.com', '1 elm street.'],
      ['a3@example.com', '1  Elm  Street'],
    ] as const) {
      expect((await offline(email, address)).status).toBe(200);
      const row = await sql<{ id: string }>`select id from claims where author_email = ${email}`.execute(server.db);
      ids.push(row.rows[0]!.id);
    }
    expect((await signal(ids[2]!, 'repeat_claimer'))?.relatedClaimIds).toEqual([ids[0], ids[1]]);
  });

  it('the same photo re-encoded on two claims: photo_reused on the second, and on the first after the recompute', async () => {
    const original = await photo(101);
    const first = await file(s, await order(s), 'p1@example.com', {
      images: [(await uploaded(s, original)).url],
    });
    const copy = await uploaded(s, await reencoded(original, 45));
    const second = await file(s, await order(s), 'p2@example.com', { images: [copy.url] });
    const reused = await signal(second, 'photo_reused');
    expect(reused?.relatedClaimIds).toEqual([first]);
    expect(reused?.detail).toMatch(/^A photo of this claim matches a photo on 1 other claim of this store/);
    // Filed with its risk, which saw its photo: the claim it names goes to the sweep, not itself.
    const pending = await sql<{ claimId: string }>`
      select claim_id from claim_risk_pending where claim_id in (${first}, ${second})`.execute(server.db);
    expect(pending.rows.map((r) => r.claimId)).toEqual([first]);
    await settle();
    expect((await signal(first, 'photo_reused'))?.relatedClaimIds).toEqual([second]);
    // An unrelated photo matches nothing.
    const third = await file(s, await order(s), 'p3@example.com', {
      images: [(await uploaded(s, await photo(202))).url],
    });
    expect(await codes(third)).toEqual([]);
  });

  it('a photo that comes later, with a message, is seen from both claims, and the sweep then runs dry', async () => {
    const original = await photo(111);
    const first = await file(s, await order(s), 'later1@example.com', {
      images: [(await uploaded(s, original)).url],
    });
    const second = await file(s, await order(s), 'later2@example.com');
    await settle();
    expect(await codes(first)).toEqual([]);
    const res = await s.post(`/v1/claims/${second}/messages`, {
      senderType: 'customer',
      message: 'The box, as it came.',
      medias: [(await uploaded(s, await reencoded(original, 50))).url],
    });
    expect(res.status).toBeLessThan(300);
    // The message queues the second claim; computing it queues the first, which it now names.
    await settle();
    expect((await signal(second, 'photo_reused'))?.relatedClaimIds).toEqual([first]);
    expect((await signal(first, 'photo_reused'))?.relatedClaimIds).toEqual([second]);
    // Each names the other: neither queues the other again (settle() returned, so the list ran dry).
    const pending = await sql<{ claimId: string }>`
      select claim_id from claim_risk_pending where claim_id in (${first}, ${second})`.execute(server.db);
    expect(pending.rows).toEqual([]);
  });

  it('a copy cropped 3 % or 5 % a side says photo_reused, found through the centre hash', async () => {
    // Picture 109: its full hash alone puts both crops more than 6 bits away.
    const original = await photo(109);
    const stored = await uploaded(s, original);
    const first = await file(s, await order(s), 'crop0@example.com', { images: [stored.url] });
    for (const [percent, email] of [
      [3, 'crop3@example.com'],
      [5, 'crop5@example.com'],
    ] as const) {
      const copy = await uploaded(s, await cropped(original, percent));
      const claim = await file(s, await order(s), email, { images: [copy.url] });
      expect((await signal(claim, 'photo_reused'))?.relatedClaimIds, `${percent} %`).toContain(first);
      const { rows } = await sql<{ bits: number }>`
        select bit_count((a.perceptual_hash # b.perceptual_hash)::bit(64))::int as bits
        from files a, files b where a.id = ${stored.id} and b.id = ${copy.id}`.execute(server.db);
      expect(rows[0]!.bits, `${percent} %, full to full`).toBeGreaterThan(6);
    }
    // The photos stored before the centre hash have none: the full hash still compares them.
    const legacy = await uploaded(s, await reencoded(original, 60));
    await rehashed(legacy.id, sql`perceptual_hash_centre = null`);
    const old = await file(s, await order(s), 'crop-legacy@example.com', { images: [legacy.url] });
    expect((await signal(old, 'photo_reused'))?.relatedClaimIds).toContain(first);
  });

  it('a photo stored before the centre hash gets one from the file sweep, and then matches its cropped copy', async () => {
    // A store of its own: the test above filed this picture's copies in `s`.
    const shop = await claimStore(server, 'risk-centre');
    const original = await photo(109);
    const legacy = await uploaded(shop, original);
    await rehashed(legacy.id, sql`perceptual_hash_centre = null`);
    const first = await file(shop, await order(shop), 'centre-old@example.com', { images: [legacy.url] });
    const copy = await uploaded(shop, await cropped(original, 5));
    const second = await file(shop, await order(shop), 'centre-copy@example.com', { images: [copy.url] });
    await settle();
    // Full hashes alone: the 5 % crop is too far from the old photo (see the test above).
    expect(await signal(second, 'photo_reused', shop)).toBeUndefined();
    const storage = openFileStorage(server.config.fileStorage);
    try {
      expect(await fillCentreHashes(server.db, storage)).toBeGreaterThanOrEqual(1);
      expect(await fillCentreHashes(server.db, storage)).toBe(0);
    } finally {
      storage.close();
    }
    const { rows } = await sql<{ same: boolean }>`
      select f.perceptual_hash_centre = (select perceptual_hash_centre from files where id = ${copy.id}) as same
      from files f where f.id = ${legacy.id}`.execute(server.db);
    expect(rows[0]!.same).toBe(false);
    // Its claim is queued; computing it finds the copy, and queues the copy's claim in turn.
    await settle();
    expect((await signal(first, 'photo_reused', shop))?.relatedClaimIds).toContain(second);
    expect((await signal(second, 'photo_reused', shop))?.relatedClaimIds).toContain(first);
  });

  it('copies uploaded at the same moment each find the others: the reuse search runs once per photo, at upload', async () => {
    const shop = await claimStore(server, 'risk-concurrent-uploads');
    const original = await photo(113);
    const copies = await Promise.all([40, 50, 60, 70, 80, 90].map(async (q) => reencoded(original, q)));
    const files = await Promise.all(copies.map((bytes) => uploaded(shop, bytes)));
    const ids = files.map((f) => f.id);
    const { rows } = await sql<{ fileId: string; matchId: string }>`
      select file_id, match_id from file_matches where file_id = any(${ids}::text[]) order by 1, 2`.execute(server.db);
    // Every ordered pair of the six, none missed by an upload that ran beside another.
    const expected = ids.flatMap((a) => ids.filter((b) => b !== a).map((b) => ({ fileId: a, matchId: b })));
    expect(rows).toEqual(expected.sort((x, y) => (x.fileId + x.matchId < y.fileId + y.matchId ? -1 : 1)));
    // Another store's copy is matched with nothing of this store.
    const other = await uploaded(s, original);
    const { rows: across } = await sql<{ n: number }>`
      select count(*)::int as n from file_matches where file_id = ${other.id} and match_id = any(${ids}::text[])`.execute(
      server.db,
    );
    expect(across[0]!.n).toBe(0);
  });

  it('the migration that keeps matches finds those of the photos stored before it', async () => {
    const shop = await claimStore(server, 'risk-matches-migration');
    const original = await photo(114);
    const a = await uploaded(shop, original);
    const b = await uploaded(shop, await reencoded(original, 45));
    const pairs = () =>
      sql<{ fileId: string; matchId: string; bits: number }>`
        select file_id, match_id, bits from file_matches where file_id in (${a.id}, ${b.id}) order by 1`.execute(
        server.db,
      );
    const before = (await pairs()).rows;
    expect(before.map((r) => [r.fileId, r.matchId])).toEqual(
      [
        [a.id, b.id],
        [b.id, a.id],
      ].sort(),
    );
    await photoMatchesMigration.down(server.db);
    await photoMatchesMigration.up(server.db);
    expect((await pairs()).rows).toEqual(before);
  });

  it('matches hashes 6 bits apart, in any spread over the bands, and not 7', async () => {
    const base = 0x0123_4567_89ab_cdefn;
    const claimWith = async (hash: bigint, email: string) => {
      const f = await uploaded(s, await photo(Number(hash & 0xffffn) + 300));
      await rehashed(f.id, sql`perceptual_hash = ${BigInt.asIntN(64, hash).toString()}::bigint`);
      return file(s, await order(s), email, { images: [f.url] });
    };
    const anchor = await claimWith(base, 'h0@example.com');
    // 6 bits: 2 + 2 + 1 + 1 over the four bands; 5 bits in one band; 7 bits: 2 + 2 + 2 + 1.
    const six = await claimWith(base ^ 0x0003_0003_0001_0001n, 'h6@example.com');
    const fiveInOne = await claimWith(base ^ 0x001f_0000_0000_0000n, 'h5@example.com');
    const seven = await claimWith(base ^ 0x0003_0003_0003_0001n ^ 0xf000_0000_0000_0000n, 'h7@example.com');
    expect((await signal(six, 'photo_reused'))?.relatedClaimIds).toEqual([anchor]);
    expect((await signal(fiveInOne, 'photo_reused'))?.relatedClaimIds).toContain(anchor);
    expect((await signal(seven, 'photo_reused'))?.relatedClaimIds ?? []).not.toContain(anchor);
  });

  it('a not-received claim on a package the carrier delivered says carrier_delivered; a damage claim does not', async () => {
    const tracking = `1ZDELIVERED${++n}`;
    const sourceOrderId = await order(s, { tracking });
    await trackingEvent(s, sourceOrderId, tracking, 'delivered');
    const missing = await file(s, sourceOrderId, 'd1@example.com', {
      issueType: 'ORDER_DELIVERED_NOT_RECEIVED',
      fulfillment: 'f-1',
    });
    const delivered = await signal(missing, 'carrier_delivered');
    expect(delivered?.detail).toMatch(new RegExp(`^The carrier \\(ups\\) reported package ${tracking} delivered on `));
    const damaged = await file(s, sourceOrderId, 'd2@example.com', { issueType: 'DAMAGED', fulfillment: 'f-1' });
    expect(await codes(damaged)).toEqual([]);
  });

  it('carrier_delivered appears when the delivery is reported after the claim, within the recompute', async () => {
    const tracking = `1ZLATER${++n}`;
    const sourceOrderId = await order(s, { tracking });
    await trackingEvent(s, sourceOrderId, tracking, 'in_transit');
    const claim = await file(s, sourceOrderId, 'late@example.com', {
      issueType: 'MISSING_ITEM',
      fulfillment: 'f-1',
    });
    expect(await codes(claim)).toEqual([]);
    await trackingEvent(s, sourceOrderId, tracking, 'delivered');
    await settle();
    expect(await codes(claim)).toEqual(['carrier_delivered']);
  });

  it('a damage claim on a package in transit says filed_before_delivery, and keeps it once delivered', async () => {
    const tracking = `1ZTRANSIT${++n}`;
    const sourceOrderId = await order(s, { tracking });
    await trackingEvent(s, sourceOrderId, tracking, 'in_transit');
    const claim = await file(s, sourceOrderId, 't1@example.com', { issueType: 'WRONG_ITEM', fulfillment: 'f-1' });
    expect(await signal(claim, 'filed_before_delivery')).toEqual({
      code: 'filed_before_delivery',
      detail: `Filed for an issue that needs the package in hand while package ${tracking} was in transit, not yet delivered.`,
      relatedClaimIds: [],
    });
    // Delivered after the filing: the filing's fact stays.
    const filed = answered(await s.api.claims.get({ params: { claimId: claim } }), 200).createdAt;
    await trackingEvent(s, sourceOrderId, tracking, 'delivered', new Date(Date.parse(filed) + 1000));
    await settle();
    expect(await codes(claim)).toEqual(['filed_before_delivery']);
  });

  it('amount_outlier: over 3 times the median of at least 5 earlier claims, not at it', async () => {
    const shop = await claimStore(server, 'risk-outlier');
    await noPhotosRequired(shop);
    // Items priced 10, 100, 29.99, 30 and 30.01.
    const sourceOrderId = await order(shop, { prices: [10, 100, 29.99, 30, 30.01] });
    let k = 0;
    const claim = (item: number) => file(shop, sourceOrderId, `o${++k}@example.com`, { item });
    for (let i = 0; i < 4; i++) expect(await codes(await claim(0), shop)).toEqual([]);
    // Four earlier claims: too few, whatever the amount.
    expect(await codes(await claim(1), shop)).toEqual([]);
    // Now five earlier (10, 10, 10, 10, 100): median 10.
    expect(await codes(await claim(2), shop)).toEqual([]);
    expect(await codes(await claim(3), shop)).toEqual([]);
    const above = await claim(4);
    expect(await signal(above, 'amount_outlier', shop)).toEqual({
      code: 'amount_outlier',
      detail:
        "Claimed value 30.01 USD is over 3 times the store's median claim of the last 90 days, 10.00 USD (of 7 claims).",
      relatedClaimIds: [],
    });
  });

  it('amount_outlier over more earlier claims than it reads: the median of the latest 200, at 3 times and over', async () => {
    // The numbers below are written for a median of the latest 200 (RISK.outlierAtMost).
    expect(RISK.outlierAtMost).toBe(200);
    const shop = await claimStore(server, 'risk-outlier-many');
    await noPhotosRequired(shop);
    const sourceOrderId = await order(shop, { prices: [10, 30, 31, 200] });
    const first = await file(shop, sourceOrderId, 'many@example.com');
    // 700 earlier claims in the window, in time order: 480 of 100, then 140 of 10, then 80 of
    // 100. The median of all of them is 100; of the latest 200 (120 of 10, 80 of 100), 10.
    const copies = await sql`
      insert into claims (id, store_id, order_id, source_order_id, author_email, claim_type, claim_category,
        sales_channel, resolution_requested, claimed_currency, claimed_value, created_at)
      select c.id || '-' || g, c.store_id, c.order_id, c.source_order_id, c.author_email, c.claim_type, c.claim_category,
        c.sales_channel, c.resolution_requested, c.claimed_currency, case when g > 480 and g <= 620 then 10 else 100 end,
        now() - make_interval(days => 30) + make_interval(secs => g)
      from claims c, generate_series(1, 700) g where c.id = ${first}`.execute(server.db);
    expect(copies.numAffectedRows).toBe(700n);
    await sql`update claims set deleted_at = now() where id = ${first}`.execute(server.db);
    let k = 0;
    const claim = (item: number) => file(shop, sourceOrderId, `m${++k}@example.com`, { item });
    // 30: exactly 3 times the median, and every value it reads at least a third of it: no signal.
    expect(await codes(await claim(1), shop)).toEqual([]);
    // 31: over 3 times the median of the latest 200 (the 30 just filed among them), though not
    // over 3 times the median of all 701 (100).
    expect((await signal(await claim(2), 'amount_outlier', shop))?.detail).toBe(
      "Claimed value 31.00 USD is over 3 times the store's median claim of the last 90 days, 10.00 USD (of 200 claims).",
    );
    expect((await signal(await claim(3), 'amount_outlier', shop))?.detail).toMatch(
      /^Claimed value 200.00 USD .* 10.00 USD \(of 200 claims\)/,
    );
  });

  it('two signals make the level high, and the list filters on it; nothing is refused', async () => {
    const email = 'high@example.com';
    const tracking = `1ZHIGH${++n}`;
    await file(s, await order(s), email);
    await file(s, await order(s), email);
    const sourceOrderId = await order(s, { tracking });
    await trackingEvent(s, sourceOrderId, tracking, 'delivered');
    const high = await file(s, sourceOrderId, email, { issueType: 'ORDER_DELIVERED_NOT_RECEIVED' });
    expect(await riskOf(high)).toMatchObject({ level: 'high' });
    expect((await codes(high)).sort()).toEqual(['carrier_delivered', 'repeat_claimer']);
    const list = async (risk: TClaimRisk['level'][]) => {
      const page = answered(await s.api.claims.list({ query: { risk, first: 100, order: 'desc' } }), 200);
      return page.edges.map((e) => ({ id: e.node.id, level: e.node.risk.level }));
    };
    const highs = await list(['high']);
    expect(highs.map((c) => c.id)).toContain(high);
    expect(highs.every((c) => c.level === 'high')).toBe(true);
    const lowOrMedium = await list(['low', 'medium']);
    expect(lowOrMedium.some((c) => c.id === high)).toBe(false);
    expect(new Set(lowOrMedium.map((c) => c.level))).toEqual(new Set(['low', 'medium']));
    const bad = await server.request('/v1/claims?risk=severe', { headers: bearer(s.token) });
    expect(bad.status).toBe(400);
  });

  it('two stores with the same shopper and the same photo see nothing of each other', async () => {
    const email = 'shared@example.com';
    const bytes = await photo(404);
    for (let i = 0; i < 2; i++) {
      await file(s, await order(s), email, { images: [(await uploaded(s, bytes)).url] });
    }
    const theirs = await file(other, await order(other), email, { images: [(await uploaded(other, bytes)).url] });
    expect(await riskOf(theirs, other)).toEqual({ level: 'low', signals: [] });
    await settle();
    expect(await riskOf(theirs, other)).toEqual({ level: 'low', signals: [] });
  });

  it("a filing's risk is the sweep's for the same claim, whatever it names", async () => {
    // The store asks photos for damage (missing_photos), a shopper claims again and again
    // (repeat_claimer), and the claims differ in what the risk reads of them: no item named, an
    // outlier amount, a delivered package, one in transit, a photo and its copy.
    const shop = await claimStore(server, 'risk-parts');
    const email = 'parts@example.com';
    const priced = await order(shop, { prices: [10, 100] });
    const [delivered, transit] = [`1ZPARTSD${++n}`, `1ZPARTST${++n}`];
    const deliveredOrder = await order(shop, { tracking: delivered });
    await trackingEvent(shop, deliveredOrder, delivered, 'delivered');
    const transitOrder = await order(shop, { tracking: transit });
    await trackingEvent(shop, transitOrder, transit, 'in_transit');
    const original = await photo(131);
    const filings: [string, () => Promise<string>][] = [
      ['no item named', () => shop.fileId(priced, claimBody({ email }))],
      ...Array.from({ length: 5 }, (_, i): [string, () => Promise<string>] => [
        `priced ${i}`,
        () => file(shop, priced, email),
      ]),
      ['an outlier', () => file(shop, priced, email, { item: 1 })],
      [
        'not received, delivered',
        () => file(shop, deliveredOrder, email, { issueType: 'MISSING_ITEM', fulfillment: 'f-1' }),
      ],
      ['damage, in transit', () => file(shop, transitOrder, email, { issueType: 'WRONG_ITEM', fulfillment: 'f-1' })],
      [
        'a photo',
        async () => file(shop, priced, 'photo@example.com', { images: [(await uploaded(shop, original)).url] }),
      ],
      [
        'its copy',
        async () =>
          file(shop, priced, 'copy@example.com', {
            issueType: 'DEFECTIVE_ITEM',
            images: [(await uploaded(shop, await reencoded(original, 40))).url],
          }),
      ],
    ];
    const seen = new Set<string>();
    for (const [what, filing] of filings) {
      const id = await filing();
      const filed = await riskOf(id, shop);
      for (const x of filed.signals) seen.add(x.code);
      await settle();
      await queueClaimRisk(sql`values (${id})`).execute(server.db);
      await settle();
      expect({ what, risk: await riskOf(id, shop) }).toEqual({ what, risk: filed });
    }
    expect([...seen].sort()).toEqual([
      'amount_outlier',
      'carrier_delivered',
      'filed_before_delivery',
      'missing_photos',
      'photo_reused',
      'repeat_claimer',
    ]);
  });

  it('answers risk in every API version, and in claim/created as filed', async () => {
    const email = 'versions@example.com';
    await file(s, await order(s), email);
    await file(s, await order(s), email);
    const id = await file(s, await order(s), email);
    const risk = await riskOf(id);
    expect(risk.level).toBe('medium');
    for (const version of ['2025-01-01', '2026-12-01', '2027-01-15']) {
      const res = await server.request(`/v1/claims/${id}`, { headers: { ...bearer(s.token), 'api-version': version } });
      expect(res.status).toBe(200);
      expect((await jsonOf(res, z.object({ risk: ZClaimRisk }))).risk).toEqual(risk);
    }
    const [event] = await claimEvents(server.db, 'claim/created', id);
    expect((event!.body as { risk: TClaimRisk }).risk).toEqual(risk);
  });

  it('missing_photos: a type the store wants photos for, filed without one, until a message brings one', async () => {
    const shop = await claimStore(server, 'risk-photos');
    const damaged = await file(shop, await order(shop), 'm1@example.com', { issueType: 'DAMAGED' });
    expect(await signal(damaged, 'missing_photos', shop)).toEqual({
      code: 'missing_photos',
      detail: 'No photo came with this claim, though the store asks for photos of damaged.',
      relatedClaimIds: [],
    });
    // Not a type the store asks photos for; and a damage claim with its photo.
    expect(
      await codes(await file(shop, await order(shop), 'm2@example.com', { issueType: 'MISSING_ITEM' }), shop),
    ).toEqual([]);
    const photographed = await file(shop, await order(shop), 'm3@example.com', {
      images: [(await uploaded(shop, await photo(505))).url],
    });
    expect(await codes(photographed, shop)).toEqual([]);
    const res = await shop.post(`/v1/claims/${damaged}/messages`, {
      senderType: 'customer',
      message: 'Here is the photo.',
      medias: [(await uploaded(shop, await photo(606))).url],
    });
    expect(res.status).toBeLessThan(300);
    await settle();
    expect(await codes(damaged, shop)).toEqual([]);
  });

  /** A tracking source of `provider` in store `s`, and a fixture sent to it signed as the provider signs. */
  async function inbound(provider: 'easypost' | 'aftership' | 'ship24', fixtures: string[]) {
    const dash = await dashboardTokenFor(server, s.owner.user.id);
    const made = await dataOf(
      await server.request(`/v1/stores/${s.owner.store.id}/tracking-sources`, {
        method: 'POST',
        headers: bearer(dash),
        json: { provider },
      }),
      ZTrackingSourceCreated,
    );
    const secret = made.secret!;
    for (const name of fixtures) {
      const raw = readFileSync(path.join(import.meta.dirname, `../tracking/fixtures/${provider}/${name}`));
      const signature: Record<string, string> =
        provider === 'easypost'
          ? { 'x-hmac-signature': `hmac-sha256-hex=${createHmac('sha256', secret).update(raw).digest('hex')}` }
          : provider === 'aftership'
            ? { 'aftership-hmac-sha256': createHmac('sha256', secret).update(raw).digest('base64') }
            : { authorization: `Bearer ${secret}` };
      const res = await server.request(`/v1/tracking/inbound/${made.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signature },
        body: new Uint8Array(raw),
      });
      expect(res.status, name).toBe(200);
    }
  }

  const notReceived = (sourceOrderId: string, email: string) =>
    file(s, sourceOrderId, email, { issueType: 'ORDER_DELIVERED_NOT_RECEIVED', fulfillment: 'f-1' });

  it("carrier_delivered names the carrier's proof of delivery, kept from an EasyPost tracker's signed_by", async () => {
    const sourceOrderId = await order(s, { tracking: '9400110898825022579493' });
    await inbound('easypost', ['delivered-signed.json']);
    const claim = await notReceived(sourceOrderId, 'proof@example.com');
    expect((await signal(claim, 'carrier_delivered'))?.detail).toMatch(
      /^The carrier \(USPS\) reported package 9400110898825022579493 delivered on .*, signed for by J SMITH\.$/,
    );
  });

  it("carrier_delivered shows AfterShip's delivery photo, its https one, beside who signed", async () => {
    const sourceOrderId = await order(s, { tracking: '1Z999AA10123456799' });
    await inbound('aftership', ['delivered-proof.json']);
    const claim = await notReceived(sourceOrderId, 'proof-as@example.com');
    expect((await signal(claim, 'carrier_delivered'))?.detail).toMatch(
      /, signed for by R PATEL, with a photo of the delivery: https:\/\/pod\.aftership-assets\.example\/1Z999AA10123456799\/photo\.jpg\.$/,
    );
  });

  it("Ship24's proof of delivery, a message of its own, joins the package's signatory and reaches the claim's risk", async () => {
    const sourceOrderId = await order(s, { tracking: '1Z999AA10123456786' });
    await inbound('ship24', ['delivered-signed.json']);
    const claim = await notReceived(sourceOrderId, 'proof-s24@example.com');
    expect((await signal(claim, 'carrier_delivered'))?.detail).toMatch(/, signed for by K NGUYEN\.$/);
    // The proof comes later, on the same inbound address: the claim is queued and computed again.
    await inbound('ship24', ['proof-of-delivery.json', 'proof-of-delivery-unavailable.json']);
    await settle();
    expect((await signal(claim, 'carrier_delivered'))?.detail).toMatch(
      /, signed for by K NGUYEN, with a photo of the delivery: https:\/\/pod\.ship24\.example\/1Z999AA10123456786\/proof\.jpg\?expires=1763804472\.$/,
    );
    const kept = await sql<{ proof: unknown }>`
      select delivery_proof as proof from tracking_packages
      where store_id = ${s.owner.store.id} and tracking_number = '1Z999AA10123456786'`.execute(server.db);
    expect(kept.rows).toEqual([
      {
        proof: {
          signedBy: 'K NGUYEN',
          photoUrl: 'https://pod.ship24.example/1Z999AA10123456786/proof.jpg?expires=1763804472',
        },
      },
    ]);
  });

  /** Claim `id`'s row held by a transaction of its own, as a slow writer holds it; foreign keys still read it. */
  async function holdClaim(id: string) {
    const holder = new pg.Client({ connectionString: server.databaseUrl });
    await holder.connect();
    await holder.query('begin');
    await holder.query('select 1 from claims where id = $1 for no key update', [id]);
    let held = true;
    return async () => {
      if (!held) return;
      held = false;
      await holder.query('rollback');
      await holder.end();
    };
  }

  /** The backends of a risk statement waiting on a claim's row (its text, cut at 1 kB, opens so). */
  const waitingSweep = async () =>
    (
      await sql<{ pid: number }>`select pid from pg_stat_activity
        where wait_event_type = 'Lock' and query like '%with risk_now as (%' and pid <> pg_backend_pid()`.execute(
        server.db,
      )
    ).rows.map((r) => r.pid);

  /** Each claim's stored level and whether it waits in claim_risk_pending, in the order given. */
  async function stateOf(ids: string[]) {
    const { rows } = await sql<{ id: string; level: string; queued: boolean }>`
      select c.id, c.risk_level as level, exists (select 1 from claim_risk_pending p where p.claim_id = c.id) as queued
      from claims c where c.id = any(${ids}::text[])`.execute(server.db);
    return ids.map((id) => rows.find((r) => r.id === id));
  }

  it('a sweep killed mid-way leaves the claim it was computing queued with its old risk, and the next sweep computes it', async () => {
    const ids = [
      await file(s, await order(s), 'kill1@example.com'),
      await file(s, await order(s), 'kill2@example.com'),
      await file(s, await order(s), 'kill3@example.com'),
    ];
    // A stale level on each (their risk is low), and all three queued before anything else, in order.
    await sql`update claims set risk_level = 'high' where id = any(${ids}::text[])`.execute(server.db);
    await sql`insert into claim_risk_pending (claim_id, queued_at)
      select u.id, now() - interval '1 day' + u.n * interval '1 second'
      from unnest(${ids}::text[]) with ordinality as u(id, n)`.execute(server.db);
    const release = await holdClaim(ids[1]!);
    const sweepDb = createDb(server.databaseUrl, { max: 1 });
    try {
      const sweep = recomputePendingRisk(sweepDb).then(
        () => null,
        (err: unknown) => err,
      );
      // The sweep has computed the first claim and is inside the second's statement.
      await expect.poll(waitingSweep, { timeout: 60_000 }).toHaveLength(1);
      // The plug pulled: its backend ends mid-statement, as when its process is killed.
      for (const pid of await waitingSweep()) await sql`select pg_terminate_backend(${pid})`.execute(server.db);
      expect(await sweep).toBeInstanceOf(Error);
    } finally {
      await release();
      await sweepDb.destroy();
    }
    const [first, second, third] = await stateOf(ids);
    expect(first).toMatchObject({ level: 'low', queued: false });
    // Nothing of the second claim's statement stayed: its old risk, still queued.
    expect(second).toMatchObject({ level: 'high', queued: true });
    // The claim after it was computed on another connection or, when the dead one served it too,
    // is still queued: never its old risk with nothing left to compute it.
    expect([
      { level: 'low', queued: false },
      { level: 'high', queued: true },
    ]).toContainEqual({
      level: third?.level,
      queued: third?.queued,
    });
    await settle();
    expect(await stateOf(ids)).toEqual(ids.map((id) => ({ id, level: 'low', queued: false })));
  });

  it('a change committed while the sweep computes a claim keeps it queued: the next sweep sees the change', async () => {
    const shop = await claimStore(server, 'risk-race');
    const claim = await file(shop, await order(shop), 'race@example.com', { issueType: 'DAMAGED' });
    expect(await codes(claim, shop)).toEqual(['missing_photos']);
    await sql`insert into claim_risk_pending (claim_id, queued_at) values (${claim}, now() - interval '2 days')`.execute(
      server.db,
    );
    const release = await holdClaim(claim);
    const sweepDb = createDb(server.databaseUrl, { max: 1 });
    try {
      const sweep = recomputePendingRisk(sweepDb);
      // Its statement has read the claim (no photo yet) and waits to write its risk.
      await expect.poll(waitingSweep, { timeout: 60_000 }).toHaveLength(1);
      // Meanwhile the shopper's photo arrives, and commits; its trigger queues the claim again.
      await sql`insert into claim_messages (id, claim_id, sender_type, message, medias)
        values (${`msg_race_${++n}`}, ${claim}, 'customer', 'Here is the photo.', '["https://photos.example.com/1.jpg"]')`.execute(
        server.db,
      );
      await release();
      await sweep;
    } finally {
      await release();
      await sweepDb.destroy();
    }
    // The statement wrote what its snapshot saw, and left the claim queued for the change it did not see.
    expect(await codes(claim, shop)).toEqual(['missing_photos']);
    expect(await stateOf([claim])).toEqual([{ id: claim, level: 'medium', queued: true }]);
    await settle();
    expect(await codes(claim, shop)).toEqual([]);
    expect(await stateOf([claim])).toEqual([{ id: claim, level: 'low', queued: false }]);
  });
});
