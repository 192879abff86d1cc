import { type TAppEvent, WEBHOOK_TOPICS, ZWebhookEvent } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TAppEventsQuery, TWebhookTestRequest } from '../../../sdk/src/index';
import {
  answered,
  bearer,
  createApp,
  createOwner,
  dashboardTokenFor,
  installWithToken,
  type Owner,
} from '../harness/fixtures';
import type { TestServer } from '../harness/server';
import { answer, type DeliveryRig, type Receiver, record, signatureOf, startDeliveryRig } from '../harness/webhooks';

/**
 * The D34 routes: the event log with its attempts (status filter, D24 cursor paging),
 * redelivery, the test send and webhook secret rotation, for the app's owner only.
 */
describe('event log and replay (D34)', () => {
  let rig: DeliveryRig;
  let server: TestServer;
  let receiver: Receiver;
  let owner: Owner;
  let token: string;
  let stranger: string;

  beforeAll(async () => {
    rig = await startDeliveryRig();
    ({ server, receiver } = rig);
    owner = await createOwner(server.db, 'log');
    token = await dashboardTokenFor(server, owner.user.id);
    const other = await createOwner(server.db, 'log-stranger');
    stranger = await dashboardTokenFor(server, other.user.id);
  });
  afterAll(async () => {
    await rig?.close();
  });

  /** An app of the owner on its own receiver path, subscribed to message/created only. */
  async function app(path: string) {
    const created = await createApp(server, owner.user.id, {
      webhookUrl: receiver.url + path,
      webhookTopics: ['message/created'],
    });
    await installWithToken(server, created.clientId, owner.store.id, ['order:read']);
    return created;
  }

  const message = (n: number) => ({
    claimId: `cl_${n}`,
    storeId: owner.store.id,
    messageId: `ms_${n}`,
    senderType: 'customer' as const,
    message: `message ${n}`,
  });
  const emit = (n: number) => record(server.db, owner.store.id, 'message/created', message(n));

  const list = (clientId: string, query: TAppEventsQuery = {}, as = token) =>
    server.api(as).apps.listEvents({ params: { clientId }, query });
  /** The events page of a list that must answer 200. */
  const page = async (clientId: string, query: TAppEventsQuery = {}) => answered(await list(clientId, query), 200).data;
  const redeliver = (clientId: string, eventId: string, as = token) =>
    server.api(as).apps.redeliverEvent({ params: { clientId, eventId } });
  const testSend = (clientId: string, body: TWebhookTestRequest, as = token) =>
    server.api(as).apps.testWebhook({ params: { clientId }, body });
  const rotateWebhookSecret = (clientId: string, as = token) =>
    server.api(as).apps.rotateWebhookSecret({ params: { clientId } });

  async function eventually(clientId: string, eventId: string, status: TAppEvent['status']) {
    await expect
      .poll(async () => (await page(clientId, { first: 250 })).edges.find((e) => e.node.id === eventId)?.node.status, {
        timeout: 20_000,
        interval: 150,
      })
      .toBe(status);
  }

  it('lists events with their attempts, pages by cursor both ways and filters by status', async () => {
    const hook = await app('/log');
    const failing = new Set<string>();
    receiver.respond('/log', (req, res) =>
      answer(failing.has(String(req.headers['x-webhook-id'])) ? 500 : 200, 'nope')(req, res),
    );
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) {
      const event = await server.db.transaction().execute(async (trx) => {
        const { recordEvent } = await import('../../src/domain/webhooks/record');
        const recorded = await recordEvent(trx, {
          storeId: owner.store.id,
          topic: 'message/created',
          body: message(n),
        });
        if (n >= 3) failing.add(recorded.id);
        return recorded;
      });
      ids.push(event.id);
    }
    for (const [i, id] of ids.entries()) await eventually(hook.clientId, id, i >= 3 ? 'failed' : 'delivered');

    const all = await page(hook.clientId);
    expect(all.edges.map((e) => e.node.id)).toEqual(ids);
    const first = all.edges[0]!.node;
    expect(first).toMatchObject({ topic: 'message/created', storeId: owner.store.id, body: message(0) });
    expect(first.status).toBe('delivered');
    expect(first.nextAttemptAt).toBeNull();
    expect(first.attempts).toHaveLength(1);
    expect(first.attempts[0]).toMatchObject({ statusCode: 200, error: null, response: 'nope' });

    const p1 = await page(hook.clientId, { first: 2 });
    expect(p1.edges.map((e) => e.node.id)).toEqual(ids.slice(0, 2));
    expect(p1.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const p2 = await page(hook.clientId, { first: 2, after: p1.pageInfo.endCursor! });
    expect(p2.edges.map((e) => e.node.id)).toEqual(ids.slice(2, 4));
    const p3 = await page(hook.clientId, { first: 2, after: p2.pageInfo.endCursor! });
    expect(p3.edges.map((e) => e.node.id)).toEqual(ids.slice(4));
    expect(p3.pageInfo.hasNextPage).toBe(false);
    const back = await page(hook.clientId, { last: 2 });
    expect(back.edges.map((e) => e.node.id)).toEqual(ids.slice(3));
    expect(back.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    const back2 = await page(hook.clientId, { last: 2, before: back.pageInfo.startCursor! });
    expect(back2.edges.map((e) => e.node.id)).toEqual(ids.slice(1, 3));

    const failed = (await page(hook.clientId, { status: 'failed' })).edges.map((e) => e.node);
    expect(failed.map((e) => e.id)).toEqual(ids.slice(3));
    for (const e of failed) {
      // Schedule 1,1,1: four attempts, each logged with its answer.
      expect(e.attempts.map((a) => a.statusCode)).toEqual([500, 500, 500, 500]);
      expect(e.attempts[0]).toMatchObject({ error: 'answered 500', response: 'nope' });
      expect(e.attempts[0]!.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect((await page(hook.clientId, { status: 'delivered' })).edges).toHaveLength(3);
    expect((await page(hook.clientId, { status: 'pending' })).edges).toEqual([]);

    expect((await list(hook.clientId, { after: 'not-a-cursor' })).status).toBe(400);
    expect((await list(hook.clientId, { first: 2, last: 2 })).status).toBe(400);
    // A status the contract does not know: sent raw.
    const lost = await server.request(`/v1/apps/${hook.clientId}/events?status=lost`, { headers: bearer(token) });
    expect(lost.status).toBe(400);
  });

  it("shows each body as the app is sent it, in its pin's version: a tracking claim type reads null before 2027-01-15 (D44, D54)", async () => {
    const pinnedApp = async (path: string, apiVersion: string) => {
      const created = await createApp(server, owner.user.id, {
        webhookUrl: receiver.url + path,
        webhookTopics: ['claim/created'],
      });
      const pinned = await server.request(`/v1/apps/${created.clientId}`, {
        method: 'PATCH',
        headers: bearer(token),
        json: { apiVersion },
      });
      expect(pinned.status).toBe(200);
      await installWithToken(server, created.clientId, owner.store.id, ['order:read']);
      return created;
    };
    const older = await pinnedApp('/pinned-older', '2026-12-01');
    const newest = await pinnedApp('/pinned-newest', '2027-01-15');
    const created = {
      claimId: 'cl_lost',
      storeId: owner.store.id,
      sourceOrderId: 'o-lost',
      claimCategory: 'SHIPPING' as const,
      claimType: 'LOST_IN_TRANSIT' as const,
      claimState: 'NEW' as const,
      items: [],
    };
    const event = await record(server.db, owner.store.id, 'claim/created', created);
    const logged = async (clientId: string) =>
      (await page(clientId)).edges.find((e) => e.node.id === event.id)!.node.body as unknown;
    expect(await logged(older.clientId)).toEqual({ ...created, claimType: null });
    expect(await logged(newest.clientId)).toEqual(created);
    // What the older app's receiver got: the same body as its log shows.
    await expect.poll(() => receiver.at('/pinned-older').length, { timeout: 20_000, interval: 50 }).toBe(1);
    expect(JSON.parse(receiver.at('/pinned-older')[0]!.raw).body).toEqual(await logged(older.clientId));
  });

  it('refuses tampered, unsigned and carried-over cursors with the D2 400 of every D24 list', async () => {
    const hook = await app('/cursors');
    const other = await app('/cursors-other');
    for (let n = 0; n < 3; n++) await emit(n);
    const cursor = (await page(hook.clientId, { first: 1 })).pageInfo.endCursor!;
    const [text, mac] = cursor.split('.') as [string, string];
    const position = JSON.parse(Buffer.from(text, 'base64url').toString()) as [string, string];
    const moved = Buffer.from(JSON.stringify(['1970-01-01T00:00:00.000000Z', position[1]])).toString('base64url');
    const flipped = mac.slice(0, -1) + (mac.endsWith('A') ? 'B' : 'A');
    // `text` alone is a position without its signature.
    for (const bad of [`${moved}.${mac}`, `${text}.${flipped}`, text, `${text}.${mac}.x`, 'garbage', '.']) {
      for (const [side, query] of [
        ['after', { after: bad }],
        ['before', { last: 1, before: bad }],
      ] as const) {
        const res = await list(hook.clientId, query);
        expect(res.status, `${side} ${bad}`).toBe(400);
        expect(res.body).toMatchObject({
          statusCode: 400,
          error: 'Bad Request',
          message: `invalid request: ${side}: not a cursor of this list`,
        });
      }
    }
    // Bound to the app and the status filter.
    expect((await list(other.clientId, { after: cursor })).status).toBe(400);
    expect((await list(hook.clientId, { after: cursor, status: 'pending' })).status).toBe(400);
    const next = await page(hook.clientId, { after: cursor });
    expect(next.edges).toHaveLength(2);
  });

  it('redelivers a delivered and a failed event with the same id and body', async () => {
    const hook = await app('/again');
    let status = 200;
    receiver.respond('/again', (req, res) => answer(status)(req, res));
    const ok = await emit(1);
    await eventually(hook.clientId, ok.id, 'delivered');
    const redelivered = answered(await redeliver(hook.clientId, ok.id), 200).data;
    expect(redelivered).toMatchObject({ id: ok.id, status: 'pending' });
    await eventually(hook.clientId, ok.id, 'delivered');
    await expect.poll(() => receiver.at('/again').length, { timeout: 20_000 }).toBe(2);
    const [a, b] = receiver.at('/again');
    expect(b!.headers['x-webhook-id']).toBe(ok.id);
    expect(b!.raw).toBe(a!.raw);

    status = 500;
    const bad = await emit(2);
    await eventually(hook.clientId, bad.id, 'failed');
    status = 200;
    expect((await redeliver(hook.clientId, bad.id)).status).toBe(200);
    await eventually(hook.clientId, bad.id, 'delivered');

    expect((await redeliver(hook.clientId, 'evt_missing')).status).toBe(404);
    // An event of another app answers as a missing one (D7).
    const other = await app('/again-other');
    expect((await redeliver(other.clientId, ok.id)).status).toBe(404);

    // Nothing is delivered to a store the app left (D14).
    await server.db
      .updateTable('installations')
      .set({ uninstalledAt: new Date() })
      .where('clientId', '=', hook.clientId)
      .execute();
    const refused = await redeliver(hook.clientId, ok.id);
    expect(answered(refused, 409).message).toMatch(/no longer installed/);
  });

  it('test-sends a signed sample of each topic and reports the attempt; not logged', async () => {
    const hook = await app('/sample');
    for (const topic of WEBHOOK_TOPICS) {
      const result = answered(await testSend(hook.clientId, { topic, storeId: owner.store.id }), 200).data;
      expect(result).toMatchObject({ topic, storeId: owner.store.id, delivered: true });
      expect(result.attempt?.statusCode).toBe(200);
      const got = receiver.at('/sample').at(-1)!;
      expect(ZWebhookEvent.parse(JSON.parse(got.raw))).toMatchObject({ id: result.id, topic });
      expect(got.headers['x-webhook-signature']).toBe(`v1,${signatureOf(hook.webhookSecret, got)}`);
      const logged = await server.db.selectFrom('webhookEvents').select('id').where('id', '=', result.id).execute();
      expect(logged).toEqual([]);
    }
    receiver.respond('/sample', answer(500, 'down'));
    const failed = await testSend(hook.clientId, { topic: 'claim/denied', storeId: owner.store.id });
    expect(answered(failed, 200).data).toMatchObject({
      delivered: false,
      attempt: { statusCode: 500, error: 'answered 500', response: 'down' },
    });

    const elsewhere = await createOwner(server.db, 'log-elsewhere');
    const notInstalled = await testSend(hook.clientId, { topic: 'claim/denied', storeId: elsewhere.store.id });
    expect(notInstalled.status).toBe(404);
    const noUrl = await createApp(server, owner.user.id, {});
    await installWithToken(server, noUrl.clientId, owner.store.id, ['order:read']);
    expect((await testSend(noUrl.clientId, { topic: 'claim/denied', storeId: owner.store.id })).status).toBe(409);
    // A topic the contract does not know: sent raw.
    const nope = await server.request(`/v1/apps/${hook.clientId}/webhooks/test`, {
      method: 'POST',
      headers: bearer(token),
      json: { topic: 'claim/nope', storeId: owner.store.id },
    });
    expect(nope.status).toBe(400);
  });

  it('rotates the webhook secret: 24 h of dual signatures, the new secret in x-webhook-secret', async () => {
    const hook = await app('/rotate');
    const rotated = answered(await rotateWebhookSecret(hook.clientId), 200).data;
    expect(rotated.webhookSecret).toMatch(/^svc_whsec_/);
    expect(rotated.webhookSecret).not.toBe(hook.webhookSecret);
    const expiresIn = Date.parse(rotated.previousSecretExpiresAt) - Date.now();
    expect(Math.abs(expiresIn - 24 * 3600 * 1000)).toBeLessThan(60_000);

    const event = await emit(7);
    await eventually(hook.clientId, event.id, 'delivered');
    const got = receiver.at('/rotate')[0]!;
    expect(got.headers['x-webhook-secret']).toBe(rotated.webhookSecret);
    expect(got.headers['x-webhook-signature']).toBe(
      `v1,${signatureOf(rotated.webhookSecret, got)} v1,${signatureOf(hook.webhookSecret, got)}`,
    );

    // Once the 24 hours are over, only the new secret signs.
    await server.db
      .updateTable('apps')
      .set({ previousWebhookSecretExpiresAt: new Date(Date.now() - 1000) })
      .where('clientId', '=', hook.clientId)
      .execute();
    const later = await emit(8);
    await eventually(hook.clientId, later.id, 'delivered');
    const single = receiver.at('/rotate')[1]!;
    expect(single.headers['x-webhook-signature']).toBe(`v1,${signatureOf(rotated.webhookSecret, single)}`);
  });

  it("answers 404 to anyone but the app's owner, on all four routes, and changes nothing", async () => {
    const hook = await app('/private');
    const event = await emit(9);
    await eventually(hook.clientId, event.id, 'delivered');
    const before = await server.db
      .selectFrom('apps')
      .select('webhookSecretCiphertext')
      .where('clientId', '=', hook.clientId)
      .executeTakeFirstOrThrow();
    expect((await list(hook.clientId, {}, stranger)).status).toBe(404);
    expect((await redeliver(hook.clientId, event.id, stranger)).status).toBe(404);
    expect((await testSend(hook.clientId, { topic: 'claim/denied', storeId: owner.store.id }, stranger)).status).toBe(
      404,
    );
    expect((await rotateWebhookSecret(hook.clientId, stranger)).status).toBe(404);
    // Exactly what a missing app answers (D7).
    const missing = await list('svc_app_missing', {}, stranger);
    const foreign = await list(hook.clientId, {}, stranger);
    expect(foreign.body).toEqual(missing.body);
    const after = await server.db
      .selectFrom('apps')
      .select('webhookSecretCiphertext')
      .where('clientId', '=', hook.clientId)
      .executeTakeFirstOrThrow();
    expect(after).toEqual(before);
    expect(receiver.at('/private')).toHaveLength(1);
    expect((await page(hook.clientId)).edges[0]!.node.status).toBe('delivered');
  });
});
