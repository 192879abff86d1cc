import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ZTrackingSourceCreated } from '@protection-service/contract';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/domain/identity/users';
import { pruneTracking } from '../../src/domain/webhooks/retention';
import {
  answered,
  bearer,
  createApp,
  createOwner,
  dashboardTokenFor,
  installWithToken,
  type Owner,
} from '../harness/fixtures';
import { dataOf } from '../harness/json';
import { startTestServer, type TestServer } from '../harness/server';
import { testModeRig } from '../harness/test-mode';

const FIXTURE = readFileSync(path.join(import.meta.dirname, 'fixtures/easypost/delivered.json'));
const FIXTURE_NUMBER = '9400110898825022579493';

/** Shipment tracking over HTTP (D54): the three ways in, sources, settings and reads. */
describe('shipment tracking (D54)', () => {
  let server: TestServer;
  let owner: Owner;
  let other: Owner;
  let token: string;
  let otherToken: string;
  let dash: string;
  let otherDash: string;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9, public: 1e9 } });
    owner = await createOwner(server.db, `trk-${randomBytes(3).toString('hex')}`);
    other = await createOwner(server.db, `trk-other-${randomBytes(3).toString('hex')}`);
    const scopes = ['order:read', 'order:update', 'store:read'] as const;
    const app = await createApp(server, owner.user.id, { requestedScopes: [...scopes] });
    token = (await installWithToken(server, app.clientId, owner.store.id, [...scopes])).accessToken;
    const otherApp = await createApp(server, other.user.id, { requestedScopes: [...scopes] });
    otherToken = (await installWithToken(server, otherApp.clientId, other.store.id, [...scopes])).accessToken;
    dash = await dashboardTokenFor(server, owner.user.id);
    otherDash = await dashboardTokenFor(server, other.user.id);
  });
  afterAll(async () => {
    await server.close();
  });

  const putOrder = (id: string, t = token) =>
    server.request(`/v1/orders/${id}`, {
      method: 'PUT',
      headers: bearer(t),
      json: {
        sourceOrderNumber: `#${id}`,
        currency: 'USD',
        platformId: 'shopify',
        total: 10,
        sourceCreatedAt: '2026-11-01T00:00:00Z',
      },
    });
  const putFulfillment = (o: string, f: string, body: Record<string, unknown>, t = token) =>
    server.request(`/v1/orders/${o}/fulfillments/${f}`, { method: 'PUT', headers: bearer(t), json: body });
  const addEvents = (o: string, f: string, body: Record<string, unknown>, t = token) =>
    server.request(`/v1/orders/${o}/fulfillments/${f}/tracking-events`, {
      method: 'POST',
      headers: bearer(t),
      json: body,
    });
  const packages = async (o: string, f: string, t = token) =>
    answered(await server.api(t).tracking.get({ params: { sourceOrderId: o, sourceFulfillmentId: f } }), 200);
  const updates = (number: string) =>
    server.db
      .selectFrom('webhookEvents')
      .select('body')
      .where('topic', '=', 'tracking/updated')
      .where(sql<string>`body->>'trackingNumber'`, '=', number)
      .orderBy('createdAt')
      .execute();

  it('a fulfillment PUT whose status changed is one event; the same status again is none', async () => {
    expect((await putOrder('t-1')).status).toBe(200);
    const f = { fulfillmentStatus: 'IN_TRANSIT', trackingCompany: 'UPS', trackingNumber: ['1ZFULFIL'] };
    expect((await putFulfillment('t-1', 'f-1', { ...f, updatedAt: '2026-11-02T10:00:00Z' })).status).toBe(200);
    expect((await putFulfillment('t-1', 'f-1', { ...f, updatedAt: '2026-11-02T11:00:00Z' })).status).toBe(200);
    const [p] = await packages('t-1', 'f-1');
    expect(p).toMatchObject({ trackingNumber: '1ZFULFIL', carrier: 'UPS', status: 'in_transit', decisions: [] });
    expect(p!.events).toHaveLength(1);
    expect(p!.events[0]).toMatchObject({
      status: 'in_transit',
      rawStatus: 'IN_TRANSIT',
      occurredAt: '2026-11-02T10:00:00.000Z',
    });
    const sent = await updates('1ZFULFIL');
    expect(sent.map((e) => e.body)).toEqual([
      expect.objectContaining({
        sourceOrderId: 't-1',
        sourceFulfillmentId: 'f-1',
        status: 'in_transit',
        previousStatus: null,
      }),
    ]);
  });

  it('partner events: duplicates and out-of-order deliveries change nothing (D54)', async () => {
    await putOrder('t-2');
    await putFulfillment('t-2', 'f-1', { fulfillmentStatus: 'FULFILLED', trackingNumber: ['NUM-2'] });
    const scan = { id: 'e1', occurredAt: '2026-11-03T08:00:00Z', status: 'in_transit', location: 'Depot' };
    const done = { id: 'e2', occurredAt: '2026-11-05T08:00:00Z', status: 'delivered', description: 'Left at door' };
    // The later event first, then the earlier one, then both again.
    const first = await addEvents('t-2', 'f-1', { trackingNumber: 'NUM-2', carrier: 'DHL', events: [done] });
    expect(first.status).toBe(200);
    const afterFirst = await first.json();
    expect(afterFirst).toMatchObject({ status: 'delivered', deliveredAt: '2026-11-05T08:00:00.000Z' });
    const viaSdk = await server.api(token).tracking.addEvents({
      params: { sourceOrderId: 't-2', sourceFulfillmentId: 'f-1' },
      body: { trackingNumber: 'NUM-2', events: [{ ...scan, status: 'in_transit' as const }] },
    });
    expect(viaSdk.status).toBe(200);
    expect((await addEvents('t-2', 'f-1', { trackingNumber: 'NUM-2', events: [done, scan, scan] })).status).toBe(200);
    const [p] = await packages('t-2', 'f-1');
    expect(p).toMatchObject({ status: 'delivered', lastScanAt: '2026-11-05T08:00:00.000Z', carrier: 'DHL' });
    expect(p!.events.map((e) => e.status)).toEqual(['delivered', 'in_transit']);
    expect(await updates('NUM-2')).toHaveLength(1);
    // More than 100 events is refused whole (D2).
    const many = Array.from({ length: 101 }, (_, i) => ({ ...scan, id: `m${i}` }));
    expect((await addEvents('t-2', 'f-1', { trackingNumber: 'NUM-2', events: many })).status).toBe(400);
    // Another store's token does not see the fulfillment.
    expect((await addEvents('t-2', 'f-1', { trackingNumber: 'NUM-2', events: [scan] }, otherToken)).status).toBe(404);
    expect(
      (await server.api(otherToken).tracking.get({ params: { sourceOrderId: 't-2', sourceFulfillmentId: 'f-1' } }))
        .status,
    ).toBe(404);
  });

  const createSource = async (body: Record<string, unknown>, d = dash, storeId = owner.store.id) =>
    server.request(`/v1/stores/${storeId}/tracking-sources`, { method: 'POST', headers: bearer(d), json: body });
  const inbound = (id: string, raw: Buffer, headers: Record<string, string>) =>
    server.request(`/v1/tracking/inbound/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: new Uint8Array(raw),
    });
  const easypostSig = (secret: string, raw: Buffer) =>
    `hmac-sha256-hex=${createHmac('sha256', secret).update(raw).digest('hex')}`;

  it('sources: the secret is answered once, when the service made it, and never listed (D54)', async () => {
    const made = await createSource({ provider: 'easypost' });
    expect(made.status).toBe(201);
    const data = await dataOf(made, ZTrackingSourceCreated);
    expect(data.secret).toMatch(/^svc_trsec_/);
    expect(data.inboundUrl).toBe(`${server.config.publicBaseUrl}/v1/tracking/inbound/${data.id}`);
    const given = await (await createSource({ provider: 'aftership', secret: 'a-secret-of-my-own-1234' })).json();
    expect(given.data).not.toHaveProperty('secret');
    const listed = await server.api(dash).tracking.listSources({ params: { storeId: owner.store.id } });
    const text = JSON.stringify(listed.body);
    expect(listed.status).toBe(200);
    const viaSdk = answered(
      await server
        .api(dash)
        .tracking.createSource({ params: { storeId: owner.store.id }, body: { provider: 'ship24' } }),
      201,
    ).data;
    expect(viaSdk.secret).toMatch(/^svc_trsec_/);
    answered(
      await server.api(dash).tracking.removeSource({ params: { storeId: owner.store.id, sourceId: viaSdk.id } }),
      200,
    );
    expect(text).not.toContain(data.secret);
    expect(text).not.toContain('a-secret-of-my-own-1234');
    const audit = await server.db
      .selectFrom('auditEvents')
      .select('changes')
      .where('storeId', '=', owner.store.id)
      .execute();
    expect(JSON.stringify(audit)).not.toContain(data.secret);
    expect(JSON.stringify(audit)).not.toContain('a-secret-of-my-own-1234');
    // Another store's owner cannot see or remove it (404, D7); a viewer is refused (403, D49).
    expect((await createSource({ provider: 'easypost' }, otherDash)).status).toBe(404);
    const removeOther = await server.request(`/v1/stores/${other.store.id}/tracking-sources/${data.id}`, {
      method: 'DELETE',
      headers: bearer(otherDash),
    });
    expect(removeOther.status).toBe(404);
    const viewer = await createUser(server.db, {
      email: `viewer-${randomBytes(4).toString('hex')}@example.com`,
      password: 'a long enough password',
      storeIds: [owner.store.id],
      role: 'viewer',
    });
    expect((await createSource({ provider: 'easypost' }, await dashboardTokenFor(server, viewer.id))).status).toBe(403);
  });

  it('inbound: the raw bytes are verified (136.0 kept); a bad signature and an unknown source answer the same 401', async () => {
    const made = await dataOf(await createSource({ provider: 'easypost' }), ZTrackingSourceCreated);
    // The service made the secret, so it is answered.
    const data = { id: made.id, secret: made.secret! };
    expect(FIXTURE.toString()).toContain('136.0');
    const good = await inbound(data.id, FIXTURE, { 'x-hmac-signature': easypostSig(data.secret, FIXTURE) });
    expect(good.status).toBe(200);
    const tampered = Buffer.from(FIXTURE);
    tampered[tampered.indexOf('136.0') + 4] = '1'.charCodeAt(0);
    const refusals = [
      await inbound(data.id, tampered, { 'x-hmac-signature': easypostSig(data.secret, FIXTURE) }),
      await inbound(data.id, FIXTURE, { 'x-hmac-signature': easypostSig('another-secret-entirely', FIXTURE) }),
      await inbound(data.id, FIXTURE, {}),
      await inbound('trs_unknown', FIXTURE, { 'x-hmac-signature': easypostSig(data.secret, FIXTURE) }),
    ];
    const bodies = await Promise.all(refusals.map(async (r) => ({ status: r.status, body: await r.json() })));
    for (const b of bodies) expect(b).toEqual(bodies[3]);
    expect(bodies[3]!.status).toBe(401);
    // No package names the number yet: kept unbound, then bound when a fulfillment names it.
    const unbound = await server.db
      .selectFrom('trackingPackages')
      .select(['orderId', 'unboundUntil', 'status'])
      .where('storeId', '=', owner.store.id)
      .where('trackingNumber', '=', FIXTURE_NUMBER)
      .executeTakeFirstOrThrow();
    expect(unbound).toMatchObject({ orderId: null, status: 'delivered' });
    expect(unbound.unboundUntil!.getTime()).toBeGreaterThan(Date.now() + 13 * 86_400_000);
    await putOrder('t-3');
    await putFulfillment('t-3', 'f-1', { fulfillmentStatus: 'FULFILLED', trackingNumber: [FIXTURE_NUMBER] });
    const [p] = await packages('t-3', 'f-1');
    expect(p).toMatchObject({ trackingNumber: FIXTURE_NUMBER, status: 'delivered', carrier: 'USPS' });
    expect(p!.events.length).toBeGreaterThan(1);
    expect(await updates(FIXTURE_NUMBER)).toHaveLength(1);
    // Through the SDK, signed over the bytes it sends: a number no fulfillment names, kept.
    const payload = {
      trackings: [
        { tracker: { trackingNumber: 'SHIP24-UNBOUND' }, shipment: { statusMilestone: 'in_transit' }, events: [] },
      ],
    };
    const ship24 = answered(
      await server
        .api(dash)
        .tracking.createSource({ params: { storeId: owner.store.id }, body: { provider: 'ship24' } }),
      201,
    ).data;
    const viaSdk = await server.api().tracking.receiveInbound({
      params: { sourceId: ship24.id },
      body: payload,
      headers: { authorization: `Bearer ${ship24.secret}` },
    });
    expect(viaSdk.status).toBe(200);
    // A replay of the same delivery changes nothing and emits nothing.
    expect((await inbound(data.id, FIXTURE, { 'x-hmac-signature': easypostSig(data.secret, FIXTURE) })).status).toBe(
      200,
    );
    expect(await packages('t-3', 'f-1')).toEqual([p]);
    expect(await updates(FIXTURE_NUMBER)).toHaveLength(1);
    // Another store never sees it; a removed source answers as an unknown one.
    expect(
      (await server.api(otherToken).tracking.get({ params: { sourceOrderId: 't-3', sourceFulfillmentId: 'f-1' } }))
        .status,
    ).toBe(404);
    const removed = await server.request(`/v1/stores/${owner.store.id}/tracking-sources/${data.id}`, {
      method: 'DELETE',
      headers: bearer(dash),
    });
    expect(removed.status).toBe(200);
    const after = await inbound(data.id, FIXTURE, { 'x-hmac-signature': easypostSig(data.secret, FIXTURE) });
    expect({ status: after.status, body: await after.json() }).toEqual(bodies[3]);
  });

  it('settings: D54 defaults, an owner writes them, partners read them with store:read', async () => {
    const url = `/v1/stores/${owner.store.id}/tracking-settings`;
    const initial = answered(await server.api(dash).tracking.getSettings({ params: { storeId: owner.store.id } }), 200);
    expect(initial.data).toEqual({
      mode: 'off',
      lostNoMovementDays: 7,
      lostAfterEstimatedDays: 2,
      delayedEnabled: false,
      delayedAfterEstimatedDays: 1,
      claimWindowDays: 45,
      resolutionRequested: 'REFUND',
    });
    const put = await server.api(dash).tracking.updateSettings({
      params: { storeId: owner.store.id },
      body: { mode: 'notify', lostNoMovementDays: 5 },
    });
    expect(answered(put, 200).data).toMatchObject({ mode: 'notify', lostNoMovementDays: 5, claimWindowDays: 45 });
    expect(
      (await server.request(url, { method: 'PUT', headers: bearer(dash), json: { lostNoMovementDays: 0 } })).status,
    ).toBe(400);
    expect((await server.request(url, { method: 'PUT', headers: bearer(dash), json: { mode: null } })).status).toBe(
      400,
    );
    const read = answered(await server.api(token).tracking.readSettings(), 200).data;
    expect(read).toMatchObject({ mode: 'notify', lostNoMovementDays: 5, claimWindowDays: 45 });
    expect(answered(await server.api(otherToken).tracking.readSettings(), 200).data.mode).toBe('off');
  });

  it('the test helper injects events on a test store only; a live token is refused (D45)', async () => {
    const t = await testModeRig(server, `trk-${randomBytes(3).toString('hex')}`, ['order:read', 'order:update']);
    await putOrder('t-4', t.testToken);
    await putFulfillment('t-4', 'f-1', { fulfillmentStatus: 'FULFILLED', trackingNumber: ['TEST-1'] }, t.testToken);
    const body = {
      sourceOrderId: 't-4',
      sourceFulfillmentId: 'f-1',
      trackingNumber: 'TEST-1',
      events: [{ occurredAt: '2027-01-01T00:00:00Z', status: 'lost' as const, subStatus: 'carrier_says_so' }],
    };
    const injected = answered(await server.api(t.testToken).testHelpers.addTrackingEvents({ body }), 200);
    expect(injected).toMatchObject({ status: 'lost', subStatus: 'carrier_says_so' });
    expect((await server.api(t.liveToken).testHelpers.addTrackingEvents({ body })).status).toBe(403);
    // D54: the rules run as of the time given; the store's rules are off by default.
    expect(
      answered(
        await server.api(t.testToken).testHelpers.evaluateTracking({ body: { asOf: '2027-01-02T00:00:00Z' } }),
        200,
      ).decisions,
    ).toEqual([expect.objectContaining({ trackingNumber: 'TEST-1', action: 'skipped', claimId: null })]);
    // The live store of the same owner knows nothing of the test store's fulfillment.
    expect(
      (await server.api(t.liveToken).tracking.get({ params: { sourceOrderId: 't-4', sourceFulfillmentId: 'f-1' } }))
        .status,
    ).toBe(404);
  });

  it("the retention clears old events' addresses and drops numbers unbound past 14 days (D48, D54)", async () => {
    const unbound = await server.db
      .selectFrom('trackingPackages')
      .select('id')
      .where('storeId', '=', owner.store.id)
      .where('trackingNumber', '=', 'SHIP24-UNBOUND')
      .executeTakeFirstOrThrow();
    await server.db
      .updateTable('trackingPackages')
      .set({ unboundUntil: new Date(Date.now() - 1000) })
      .where('id', '=', unbound.id)
      .execute();
    await server.db
      .updateTable('trackingEvents')
      .set({ receivedAt: new Date(Date.now() - 31 * 86_400_000) })
      .execute();
    await pruneTracking(server.db, 30);
    const left = await server.db.selectFrom('trackingEvents').select(['description', 'location']).execute();
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((e) => e.description === null && e.location === null)).toBe(true);
    expect(await server.db.selectFrom('trackingPackages').select('id').where('id', '=', unbound.id).execute()).toEqual(
      [],
    );
    const [p] = await packages('t-3', 'f-1');
    expect(p!.status).toBe('delivered');
  });
});
