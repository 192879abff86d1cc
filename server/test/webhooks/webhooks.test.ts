import { ZWebhookEvent } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/free-port';
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
import {
  answer,
  type DeliveryRig,
  deniedBody,
  type Receiver,
  record,
  signatureOf,
  startDeliveryRig,
} from '../harness/webhooks';

/**
 * Webhook delivery end to end (D32, D35): events recorded in committed transactions reach a
 * receiver of the test's own through a separate delivering process (`pnpm worker`), signed,
 * retried on the schedule (1 s steps here), and ended as the answers say.
 */
describe('webhook delivery', () => {
  let rig: DeliveryRig;
  let server: TestServer;
  let receiver: Receiver;
  let owner: Owner;
  let dashboard: string;

  beforeAll(async () => {
    rig = await startDeliveryRig();
    ({ server, receiver } = rig);
    owner = await createOwner(server.db, 'hooks');
    dashboard = await dashboardTokenFor(server, owner.user.id);
  });
  afterAll(async () => {
    await rig?.close();
  });

  /** An app with its own receiver path, subscribed to claim/denied and installed on the owner's store. */
  async function subscribedApp(path: string, url = receiver.url + path) {
    const app = await createApp(server, owner.user.id, { webhookUrl: url, webhookTopics: ['claim/denied'] });
    const installed = await installWithToken(server, app.clientId, owner.store.id, ['order:read']);
    return { ...app, ...installed };
  }

  const delivery = (eventId: string, clientId: string) =>
    server.db
      .selectFrom('webhookDeliveries')
      .selectAll()
      .where('eventId', '=', eventId)
      .where('clientId', '=', clientId)
      .executeTakeFirstOrThrow();

  const attempts = (eventId: string, clientId: string) =>
    server.db
      .selectFrom('webhookAttempts')
      .selectAll()
      .where('eventId', '=', eventId)
      .where('clientId', '=', clientId)
      .orderBy('attemptedAt')
      .orderBy('id')
      .execute();

  async function settled(eventId: string, clientId: string, status: 'delivered' | 'failed') {
    await expect
      .poll(async () => (await delivery(eventId, clientId)).status, { timeout: 20_000, interval: 100 })
      .toBe(status);
    return delivery(eventId, clientId);
  }

  it('sends the D32 wire format: body, headers and an HMAC the receiver can check', async () => {
    const app = await subscribedApp('/wire');
    const event = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id));
    expect(event.subscribers).toEqual([app.clientId]);
    await settled(event.id, app.clientId, 'delivered');
    const [got] = receiver.at('/wire');
    expect(receiver.at('/wire')).toHaveLength(1);
    expect(got!.raw).toBe(
      JSON.stringify({
        id: event.id,
        topic: 'claim/denied',
        apiVersion: '2027-01-15',
        livemode: true,
        createdAt: event.createdAt.toISOString(),
        body: deniedBody(owner.store.id),
      }),
    );
    expect(got!.headers['webhook-api-version']).toBe('2027-01-15');
    expect(ZWebhookEvent.parse(JSON.parse(got!.raw)).topic).toBe('claim/denied');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['user-agent']).toMatch(/^protection-service-webhooks\//);
    expect(got!.headers['x-webhook-secret']).toBe(app.webhookSecret);
    expect(got!.headers['x-webhook-id']).toBe(event.id);
    expect(got!.headers['x-webhook-topic']).toBe('claim/denied');
    const timestamp = Number(got!.headers['x-webhook-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(got!.headers['x-webhook-signature']).toBe(`v1,${signatureOf(app.webhookSecret, got!)}`);
    const logged = await attempts(event.id, app.clientId);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ statusCode: 200, error: null, responseExcerpt: 'ok' });
  });

  it("renders a delivery in the receiver's pin when recorded, byte for byte on every retry even after the pin changes (D44)", async () => {
    const app = await subscribedApp('/pinned');
    const pin = (apiVersion: string) =>
      server.request(`/v1/apps/${app.clientId}`, { method: 'PATCH', headers: bearer(dashboard), json: { apiVersion } });
    expect((await pin('2025-01-01')).status).toBe(200);
    let calls = 0;
    receiver.respond('/pinned', (req, res) => answer(++calls === 1 ? 500 : 200)(req, res));
    const event = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id, 'cl_pin'));
    expect((await delivery(event.id, app.clientId)).apiVersion).toBe('2025-01-01');
    // The pin moves on before the retry: the retry still carries what was recorded.
    await expect.poll(() => receiver.at('/pinned').length, { timeout: 20_000, interval: 50 }).toBeGreaterThan(0);
    expect((await pin('2026-12-01')).status).toBe(200);
    await settled(event.id, app.clientId, 'delivered');
    const got = receiver.at('/pinned');
    expect(got).toHaveLength(2);
    expect(got[1]!.raw).toBe(got[0]!.raw);
    expect(JSON.parse(got[0]!.raw)).toMatchObject({ id: event.id, apiVersion: '2025-01-01' });
    for (const r of got) expect(r.headers['webhook-api-version']).toBe('2025-01-01');
    // A redelivery (D34) is the same bytes again.
    const redeliver = await server.api(dashboard).apps.redeliverEvent({
      params: { clientId: app.clientId, eventId: event.id },
    });
    expect(redeliver.status).toBe(200);
    await expect.poll(() => receiver.at('/pinned').length, { timeout: 20_000, interval: 50 }).toBe(3);
    expect(receiver.at('/pinned')[2]!.raw).toBe(got[0]!.raw);
    // The next event is recorded under the new pin.
    const next = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id, 'cl_pin2'));
    await settled(next.id, app.clientId, 'delivered');
    expect(JSON.parse(receiver.at('/pinned')[3]!.raw).apiVersion).toBe('2026-12-01');
  });

  it('delivers nothing for a rolled-back change, and only to subscribed, installed apps of the store', async () => {
    const app = await subscribedApp('/routing');
    const elsewhere = await createOwner(server.db, 'hooks-elsewhere');
    const otherStoreApp = await createApp(server, owner.user.id, {
      webhookUrl: `${receiver.url}/routing-other-store`,
      webhookTopics: ['claim/denied'],
    });
    await installWithToken(server, otherStoreApp.clientId, elsewhere.store.id, ['order:read']);
    const otherTopic = await createApp(server, owner.user.id, {
      webhookUrl: `${receiver.url}/routing-other-topic`,
      webhookTopics: ['claim/created'],
    });
    await installWithToken(server, otherTopic.clientId, owner.store.id, ['order:read']);
    let rolledBack = '';
    await expect(
      server.db.transaction().execute(async (trx) => {
        const { recordEvent } = await import('../../src/domain/webhooks/record');
        rolledBack = (
          await recordEvent(trx, {
            storeId: owner.store.id,
            topic: 'claim/denied',
            body: deniedBody(owner.store.id, 'cl_rb'),
          })
        ).id;
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    // A committed event recorded after the rolled-back one: once it arrived, the other would have too.
    const committed = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id, 'cl_ok'));
    await settled(committed.id, app.clientId, 'delivered');
    expect(receiver.at('/routing').map((r) => r.headers['x-webhook-id'])).toEqual([committed.id]);
    expect(receiver.received.some((r) => r.headers['x-webhook-id'] === rolledBack)).toBe(false);
    expect(receiver.at('/routing-other-store')).toEqual([]);
    expect(receiver.at('/routing-other-topic')).toEqual([]);
  });

  it('retries a 500 with the same id and body, a fresh signature, on the schedule', async () => {
    const app = await subscribedApp('/retry-500');
    let calls = 0;
    receiver.respond('/retry-500', (req, res) => answer(++calls <= 2 ? 500 : 200, 'nope')(req, res));
    const event = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id));
    await settled(event.id, app.clientId, 'delivered');
    const got = receiver.at('/retry-500');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([event.id]));
    expect(new Set(got.map((r) => r.raw)).size).toBe(1);
    for (const r of got) expect(r.headers['x-webhook-signature']).toBe(`v1,${signatureOf(app.webhookSecret, r)}`);
    // The schedule's steps are 1 s (up to 10% jitter on top).
    for (let i = 1; i < got.length; i++) expect(got[i]!.at - got[i - 1]!.at).toBeGreaterThanOrEqual(950);
    const logged = await attempts(event.id, app.clientId);
    expect(logged.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    expect(logged[0]).toMatchObject({ error: 'answered 500', responseExcerpt: 'nope' });
    expect((await delivery(event.id, app.clientId)).attemptCount).toBe(3);
  });

  it('counts a timeout and a redirect as failures and never follows the redirect', async () => {
    const app = await subscribedApp('/slow-then-redirect');
    let calls = 0;
    receiver.respond('/slow-then-redirect', (req, res) => {
      calls++;
      if (calls === 1) setTimeout(() => answer(200)(req, res), 1500);
      else if (calls === 2) answer(302, '', { location: `${receiver.url}/redirect-target` })(req, res);
      else answer(204)(req, res);
    });
    const event = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id));
    await settled(event.id, app.clientId, 'delivered');
    const logged = await attempts(event.id, app.clientId);
    expect(logged.map((a) => [a.statusCode, a.error])).toEqual([
      [null, 'timed out after 1000 ms'],
      [302, 'answered 302; redirects are not followed'],
      [204, null],
    ]);
    expect(logged[0]!.durationMs).toBeGreaterThanOrEqual(990);
    expect(receiver.at('/redirect-target')).toEqual([]);
  });

  it('fails a delivery after the last attempt of the schedule (refused connections)', async () => {
    const closed = await freePort();
    const app = await subscribedApp('/refused', `http://127.0.0.1:${closed}/hook`);
    const event = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id));
    const ended = await settled(event.id, app.clientId, 'failed');
    // Schedule 1,1,1: the first attempt and three retries.
    expect(ended.attemptCount).toBe(4);
    expect(ended.nextAttemptAt).toBeNull();
    const logged = await attempts(event.id, app.clientId);
    expect(logged.map((a) => a.error)).toEqual(Array(4).fill('connection refused'));
  });

  it('waits as long as a 429 Retry-After asks when longer than the next step', async () => {
    const app = await subscribedApp('/busy');
    let calls = 0;
    receiver.respond('/busy', (req, res) =>
      (++calls === 1 ? answer(429, 'slow down', { 'retry-after': '3' }) : answer(200))(req, res),
    );
    const event = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id));
    await settled(event.id, app.clientId, 'delivered');
    const got = receiver.at('/busy');
    expect(got).toHaveLength(2);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(2900);
  });

  it('disables the subscription on a 410 (pending deliveries fail) until a test send succeeds', async () => {
    const app = await subscribedApp('/gone');
    receiver.respond('/gone', answer(410, 'gone'));
    const first = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id));
    const ended = await settled(first.id, app.clientId, 'failed');
    expect(ended.attemptCount).toBe(1);
    const installation = await server.db
      .selectFrom('installations')
      .select('webhookDisabledAt')
      .where('id', '=', app.installationId)
      .executeTakeFirstOrThrow();
    expect(installation.webhookDisabledAt).not.toBeNull();
    const whileDisabled = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id));
    expect(whileDisabled.subscribers).not.toContain(app.clientId);

    receiver.respond('/gone', answer(200));
    const test = await server.api(dashboard).apps.testWebhook({
      params: { clientId: app.clientId },
      body: { topic: 'claim/denied', storeId: owner.store.id },
    });
    expect(answered(test, 200).data.delivered).toBe(true);
    const after = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id));
    expect(after.subscribers).toContain(app.clientId);
    await settled(after.id, app.clientId, 'delivered');
  });

  it('stops delivering on uninstall: pending deliveries end failed, new events skip the app', async () => {
    const app = await subscribedApp('/uninstalled');
    receiver.respond('/uninstalled', answer(503));
    const event = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id));
    await expect.poll(async () => receiver.at('/uninstalled').length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    const res = await server.request(`/v1/stores/${owner.store.id}/installations/${app.clientId}`, {
      method: 'DELETE',
      headers: bearer(dashboard),
    });
    expect(res.status).toBe(200);
    const ended = await delivery(event.id, app.clientId);
    expect(ended.status).toBe('failed');
    const seen = receiver.at('/uninstalled').length;
    const later = await record(server.db, owner.store.id, 'claim/denied', deniedBody(owner.store.id));
    expect(later.subscribers).not.toContain(app.clientId);
    // Longer than the retry step: nothing more arrives.
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.at('/uninstalled')).toHaveLength(seen);
    expect((await delivery(event.id, app.clientId)).status).toBe('failed');
  });
});
