import { CLAIM_STATES, type TClaimState } from '@protection-service/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimStore, claimEvents, claimStore } from '../harness/claims';
import { answered, createApp } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** D22 / D36 state machine: approve, deny, transition; D26 / D37 store credit on approval. */
describe('claim states (D22, D36) and store credit (D26)', () => {
  let server: TestServer;
  let s: ClaimStore;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    s = await claimStore(server, 'states');
    await s.putOrder('o-states', { premiumPaid: 3 });
  });
  afterAll(async () => {
    await server.close();
  });

  /** A filed claim put in `state` directly, as a history of moves would leave it. */
  const claimIn = async (state: TClaimState, sourceOrderId = 'o-states') => {
    const id = await s.fileId(sourceOrderId);
    await sql`update claims set claim_state = ${state}, updated_at = now() - interval '1 minute' where id = ${id}`.execute(
      server.db,
    );
    return id;
  };
  /** The one route that makes a move to `to`: approve, deny, or transition (D22). */
  const moveTo = (id: string, to: TClaimState) => {
    const params = { claimId: id };
    if (to === 'APPROVED') return s.api.claims.approve({ params, body: { resolutions: [{ type: 'RESHIP' }] } });
    if (to === 'DENIED') return s.api.claims.deny({ params, body: { reason: 'NOT_COVERED' } });
    return s.api.claims.transition({ params, body: { claimState: to, note: 'moved by the test' } });
  };
  /** Everything a move may write, for one claim. */
  const footprint = async (id: string) => {
    const row = await sql<Record<string, unknown>>`
      select c.claim_state, c.updated_at, c.resolution_date, c.deny_reason,
        (select count(*) from claim_resolutions where claim_id = c.id) as resolutions,
        (select count(*) from claim_store_credits where claim_id = c.id) as credits,
        (select count(*) from claim_state_changes where claim_id = c.id) as changes,
        (select count(*) from webhook_events where body->>'claimId' = c.id) as events
      from claims c where c.id = ${id}
    `.execute(server.db);
    return row.rows[0]!;
  };
  const eventsOf = (id: string, topic: string) => claimEvents(server.db, topic, id);

  it('walks the whole 14 × 14 table: the 62 allowed moves succeed, every other answers 409 and changes nothing', async () => {
    const pairs = CLAIM_STATES.flatMap((from) => CLAIM_STATES.map((to) => [from, to] as const));
    expect(pairs).toHaveLength(196);
    const ids = await Promise.all(pairs.map(([from]) => claimIn(from)));
    let allowed = 0;
    for (const [i, [from, to]] of pairs.entries()) {
      const id = ids[i]!;
      const before = await footprint(id);
      const res = await moveTo(id, to);
      const label = `${from} -> ${to}`;
      if (res.status === 200) {
        allowed++;
        const claim = res.body;
        expect(claim.claimState, label).toBe(to);
        const after = await footprint(id);
        expect(after.claimState, label).toBe(to);
        expect(after.changes, label).toBe(1);
        const [change] = await server.db
          .selectFrom('claimStateChanges')
          .selectAll()
          .where('claimId', '=', id)
          .execute();
        expect(change, label).toMatchObject({ fromState: from, toState: to, clientId: s.clientId });
        if (to === 'APPROVED') expect(await eventsOf(id, 'claim/approved'), label).toHaveLength(1);
        if (to === 'DENIED') expect(await eventsOf(id, 'claim/denied'), label).toHaveLength(1);
      } else {
        expect(res.status, label).toBe(409);
        expect(res.body).toMatchObject({ statusCode: 409, error: 'Conflict' });
        expect(await footprint(id), label).toEqual(before);
      }
    }
    expect(allowed).toBe(62);
  });

  it('transition refuses APPROVED and DENIED as targets with 400 (D36) and unknown states', async () => {
    const id = await claimIn('OPEN');
    const before = await footprint(id);
    for (const claimState of ['APPROVED', 'DENIED', 'LOST', '']) {
      const res = await s.post(`/v1/claims/${id}/transition`, { claimState });
      expect(res.status, claimState).toBe(400);
    }
    expect(await footprint(id)).toEqual(before);
  });

  it('approve and deny carry the D22 event bodies; deny records its reason', async () => {
    const a = await claimIn('OPEN');
    const approved = await s.api.claims.approve({
      params: { claimId: a },
      body: {
        resolutions: [
          { type: 'REFUND', itemId: 'li-1', quantity: 2, paidValue: 10.005, paidCurrency: 'USD', details: 'refunded' },
          { type: 'RESHIP', includeShipping: true, shippingAmount: 4.5 },
        ],
      },
    });
    const claim = answered(approved, 200);
    expect(claim.claimState).toBe('APPROVED');
    expect(claim.resolutionDate).not.toBeNull();
    expect(claim.claimResolutions).toMatchObject([
      {
        resolutionType: 'REFUND',
        paidValue: 10.01,
        paidOriginalValue: 10.005,
        paidCurrency: 'USD',
        resolutionDetails: 'refunded',
        userId: s.clientId,
        creditStore: false,
        includeShipping: false,
      },
      { resolutionType: 'RESHIP', includeShipping: true, shippingAmount: 4.5, paidValue: null },
    ]);
    expect(claim.claimStoreCredits).toEqual([]);
    expect((await eventsOf(a, 'claim/approved'))[0]!.body).toEqual({
      claimId: a,
      storeId: s.owner.store.id,
      resolutions: [
        { type: 'REFUND', itemId: 'li-1', quantity: 2 },
        { type: 'RESHIP', itemId: null, quantity: null },
      ],
    });
    const list = answered(await s.api.claims.list({ query: { claimState: 'APPROVED' } }), 200);
    const node = list.edges.find((e) => e.node.id === a)!.node;
    expect(node.claimResolutions).toMatchObject([
      { resolution: 'REFUND', claimState: 'APPROVED' },
      { resolution: 'RESHIP', claimState: 'APPROVED' },
    ]);

    const d = await claimIn('WAITING_FOR_BRAND');
    const denied = await s.api.claims.deny({
      params: { claimId: d },
      body: { reason: 'POTENTIAL_FRAUD', details: 'same address x5' },
    });
    expect(answered(denied, 200).claimState).toBe('DENIED');
    expect((await eventsOf(d, 'claim/denied'))[0]!.body).toEqual({
      claimId: d,
      storeId: s.owner.store.id,
      sourceOrderId: 'o-states',
      reason: 'POTENTIAL_FRAUD',
    });
    expect(await footprint(d)).toMatchObject({ denyReason: 'POTENTIAL_FRAUD' });
  });

  it('refuses bad approve and deny bodies with 400, changing nothing (D36)', async () => {
    const id = await claimIn('NEW');
    const before = await footprint(id);
    const bodies = [
      { resolutions: [] },
      {},
      { resolutions: [{ type: 'STORE_CREDIT' }] },
      { resolutions: [{ type: 'STORE_CREDIT', paidValue: 0 }] },
      { resolutions: [{ type: 'STORE_CREDIT', paidValue: 0.004 }] },
      { resolutions: [{ type: 'STORE_CREDIT', paidValue: -1 }] },
      { resolutions: [{ type: 'STORE_CREDIT', paidValue: 5, paidCurrency: 'EUR' }] },
      { resolutions: [{ type: 'CASH' }] },
      { resolutions: [{ type: 'REFUND', paidCurrency: 'XXY' }] },
    ];
    for (const body of bodies) {
      const res = await s.post(`/v1/claims/${id}/approve`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    for (const body of [{}, { reason: 'BECAUSE' }, { reason: 'OTHER', extra: true }])
      expect((await s.post(`/v1/claims/${id}/deny`, body)).status).toBe(400);
    expect(await footprint(id)).toEqual(before);
  });

  it('of ten concurrent approves one answers 200 and nine 409: one resolution set, one claim/approved (D36)', async () => {
    const id = await claimIn('OPEN');
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        s.post(`/v1/claims/${id}/approve`, {
          resolutions: [
            { type: 'STORE_CREDIT', paidValue: 20 },
            { type: 'RESHIP', itemId: 'x', quantity: 1 },
          ],
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    expect(await footprint(id)).toMatchObject({ claimState: 'APPROVED', resolutions: 2, credits: 1, changes: 1 });
    expect(await eventsOf(id, 'claim/approved')).toHaveLength(1);
  });

  it('of concurrent approves, denies and dismissals of one claim exactly one move wins', async () => {
    const id = await claimIn('NEW');
    const answers = await Promise.all(
      Array.from({ length: 9 }, (_, i) => moveTo(id, (['APPROVED', 'DENIED', 'DISMISSED'] as const)[i % 3]!)),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(8);
    const after = await footprint(id);
    expect(after.changes).toBe(1);
    expect(
      (await eventsOf(id, 'claim/approved')).length + (await eventsOf(id, 'claim/denied')).length,
    ).toBeLessThanOrEqual(1);
  });

  describe('store credit (D26, D37)', () => {
    const setSettings = (values: {
      storeCreditBonus: number;
      storeCreditBonusType: 'flat' | 'percentage';
      storeCreditMaxPercentage: number;
      storeCreditType?: string;
    }) => server.db.updateTable('merchantSettings').set(values).where('storeId', '=', s.owner.store.id).execute();
    const approveCredit = async (paidValue: number, sourceOrderId = 'o-states') => {
      const id = await claimIn('OPEN', sourceOrderId);
      const res = await s.api.claims.approve({
        params: { claimId: id },
        body: { resolutions: [{ type: 'STORE_CREDIT', paidValue }] },
      });
      const claim = answered(res, 200);
      expect(claim.claimStoreCredits).toHaveLength(1);
      return { claim, credit: claim.claimStoreCredits[0]! };
    };

    it('a flat bonus from the settings, PENDING e-mail, a unique code', async () => {
      await setSettings({
        storeCreditBonus: 5,
        storeCreditBonusType: 'flat',
        storeCreditMaxPercentage: 100,
        storeCreditType: 'GIFT_CARD',
      });
      const { claim, credit } = await approveCredit(20);
      expect(credit).toMatchObject({
        creditValue: 20,
        bonusValue: 5,
        totalValue: 25,
        bonus: 5,
        bonusType: 'FLAT',
        emailStatus: 'PENDING',
        emailTime: null,
        creditCurrency: 'USD',
        claimId: claim.id,
      });
      // At least 64 random bits: 16 base32 characters carry 80.
      expect(credit.code).toMatch(/^SC-[A-Z2-7]{16}$/);
      expect(claim.claimResolutions[0]).toMatchObject({
        resolutionType: 'STORE_CREDIT',
        creditStore: true,
        paidValue: 20,
      });
      const { credit: second } = await approveCredit(20);
      expect(second.code).not.toBe(credit.code);
    });

    it('a percentage bonus, capped by storeCreditMaxPercentage, exact in decimal (D6)', async () => {
      await setSettings({ storeCreditBonus: 50, storeCreditBonusType: 'percentage', storeCreditMaxPercentage: 100 });
      // 1.15 × 50 / 100 = 0.575 exactly, which rounds half-up to 0.58 (binary floats give 0.57).
      expect((await approveCredit(1.15)).credit).toMatchObject({
        creditValue: 1.15,
        bonusValue: 0.58,
        totalValue: 1.73,
        bonus: 50,
        bonusType: 'PERCENTAGE',
      });
      // 10.005 is a credit of 10.01 (half-up on the decimal, not the double below it).
      expect((await approveCredit(10.005)).credit).toMatchObject({
        creditValue: 10.01,
        bonusValue: 5.01,
        totalValue: 15.02,
      });
      await setSettings({ storeCreditBonus: 50, storeCreditBonusType: 'percentage', storeCreditMaxPercentage: 20 });
      expect((await approveCredit(80)).credit).toMatchObject({ creditValue: 80, bonusValue: 16, totalValue: 96 });
      await setSettings({ storeCreditBonus: 30, storeCreditBonusType: 'flat', storeCreditMaxPercentage: 10 });
      expect((await approveCredit(99.99)).credit).toMatchObject({
        creditValue: 99.99,
        bonusValue: 10,
        totalValue: 109.99,
      });
      await setSettings({ storeCreditBonus: 0, storeCreditBonusType: 'flat', storeCreditMaxPercentage: 100 });
      expect((await approveCredit(7)).credit).toMatchObject({ bonusValue: 0, totalValue: 7, bonusType: 'NONE' });
    });

    it("takes the approving app's partner context overrides over the merchant settings (D37)", async () => {
      await setSettings({ storeCreditBonus: 5, storeCreditBonusType: 'flat', storeCreditMaxPercentage: 100 });
      const context = {
        storeId: s.owner.store.id,
        name: 'overrides',
        updatedAt: null,
        deletedAt: null,
        storeCreditBonus: 25,
        storeCreditBonusType: 'percentage' as const,
      };
      // Another app's context on the same store changes nothing for this app.
      const other = await createApp(server, s.owner.user.id);
      await server.db
        .insertInto('partnerContexts')
        .values({ ...context, id: 'ctx_other', clientId: other.clientId, storeCreditBonus: 90 })
        .execute();
      expect((await approveCredit(40)).credit).toMatchObject({ bonusValue: 5, bonusType: 'FLAT' });
      await server.db
        .insertInto('partnerContexts')
        .values({ ...context, id: 'ctx_own', clientId: s.clientId })
        .execute();
      expect((await approveCredit(40)).credit).toMatchObject({
        bonusValue: 10,
        totalValue: 50,
        bonusType: 'PERCENTAGE',
      });
      // A soft-deleted context no longer overrides.
      await server.db
        .updateTable('partnerContexts')
        .set({ deletedAt: new Date() })
        .where('id', '=', 'ctx_own')
        .execute();
      expect((await approveCredit(40)).credit).toMatchObject({ bonusValue: 5, bonusType: 'FLAT' });
    });

    it("rounds in the order's currency: JPY has no minor units, KWD three", async () => {
      await setSettings({ storeCreditBonus: 10, storeCreditBonusType: 'percentage', storeCreditMaxPercentage: 100 });
      await s.putOrder('o-jpy', { currency: 'JPY', total: 5000 });
      expect((await approveCredit(1234.5, 'o-jpy')).credit).toMatchObject({
        creditValue: 1235,
        bonusValue: 124,
        totalValue: 1359,
        creditCurrency: 'JPY',
      });
      await s.putOrder('o-kwd', { currency: 'KWD', total: 50 });
      expect((await approveCredit(1.2345, 'o-kwd')).credit).toMatchObject({
        creditValue: 1.235,
        bonusValue: 0.124,
        totalValue: 1.359,
        creditCurrency: 'KWD',
      });
    });
  });
});
