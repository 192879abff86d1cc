import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateWebhookSecret } from '../../server/src/domain/identity/apps';
import { createApp, createOwner, installWithToken } from '../../server/test/harness/fixtures';
import type { TestServer } from '../../server/test/harness/server';
import {
  type DeliveryRig,
  deniedBody,
  type Received,
  type Receiver,
  record,
  signatureOf,
  startDeliveryRig,
} from '../../server/test/harness/webhooks';
import { verifyWebhook, WebhookVerificationError } from '../src/index';

/** verifyWebhook against deliveries made by a real delivering process (D32, D34). */
describe('verifyWebhook', () => {
  let rig: DeliveryRig;
  let server: TestServer;
  let receiver: Receiver;
  let secret: string;
  let clientId: string;
  let ownerId: string;
  let storeId: string;
  let first: Promise<Received> | undefined;
  /** The first real delivery, made once (inside a test: it polls). */
  const firstDelivery = () => {
    first ??= deliver('cl_sdk');
    return first;
  };

  const deliver = async (claimId: string): Promise<Received> => {
    const event = await record(server.db, storeId, 'claim/denied', deniedBody(storeId, claimId));
    await expect
      .poll(() => receiver.received.find((r) => r.headers['x-webhook-id'] === event.id), { timeout: 20_000 })
      .toBeDefined();
    return receiver.received.find((r) => r.headers['x-webhook-id'] === event.id)!;
  };

  beforeAll(async () => {
    rig = await startDeliveryRig();
    ({ server, receiver } = rig);
    const owner = await createOwner(server.db, 'sdk-hooks');
    ownerId = owner.user.id;
    storeId = owner.store.id;
    const app = await createApp(server, owner.user.id, {
      webhookUrl: `${receiver.url}/hook`,
      webhookTopics: ['claim/denied'],
    });
    await installWithToken(server, app.clientId, owner.store.id, ['order:read']);
    secret = app.webhookSecret;
    clientId = app.clientId;
  });
  afterAll(async () => {
    await rig?.close();
  });

  const headersOf = (r: Received) => r.headers as Record<string, string>;
  const refusal = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).reason;
  };

  it('answers the typed event of a real delivery, from a plain object or Headers, string or bytes', async () => {
    const delivered = await firstDelivery();
    const event = await verifyWebhook({ secret, headers: headersOf(delivered), body: delivered.raw });
    expect(event.topic).toBe('claim/denied');
    if (event.topic === 'claim/denied') expect(event.body.claimId).toBe('cl_sdk');
    expect(event.id).toBe(delivered.headers['x-webhook-id']);
    const again = await verifyWebhook({
      secret: [secret],
      headers: new Headers(headersOf(delivered)),
      body: new TextEncoder().encode(delivered.raw),
    });
    expect(again).toEqual(event);
  });

  it('refuses a missing header, a wrong secret, a tampered body and a stale timestamp', async () => {
    const delivered = await firstDelivery();
    const headers = headersOf(delivered);
    for (const name of ['x-webhook-id', 'x-webhook-timestamp', 'x-webhook-signature']) {
      const { [name]: _dropped, ...rest } = headers;
      expect(await refusal(verifyWebhook({ secret, headers: rest, body: delivered.raw }))).toBe('missing-header');
    }
    expect(await refusal(verifyWebhook({ secret: 'svc_whsec_wrong', headers, body: delivered.raw }))).toBe('signature');
    const tampered = delivered.raw.replace('cl_sdk', 'cl_sdX');
    expect(await refusal(verifyWebhook({ secret, headers, body: tampered }))).toBe('signature');
    const garbage = { ...headers, 'x-webhook-signature': 'v1,!!!not-base64 v2,abc' };
    expect(await refusal(verifyWebhook({ secret, headers: garbage, body: delivered.raw }))).toBe('signature');

    // Correctly signed, but ten minutes old: a replay.
    const old = String(Math.floor(Date.now() / 1000) - 600);
    const stale = { ...headers, 'x-webhook-timestamp': old };
    const replayed = {
      ...stale,
      'x-webhook-signature': `v1,${signatureOf(secret, { headers: stale, raw: delivered.raw })}`,
    };
    expect(await refusal(verifyWebhook({ secret, headers: replayed, body: delivered.raw }))).toBe('timestamp');
    await expect(
      verifyWebhook({ secret, headers: replayed, body: delivered.raw, toleranceSeconds: 900 }),
    ).resolves.toMatchObject({ topic: 'claim/denied' });
  });

  it('knows the API version a delivery is rendered in (D44): checks it when asked, and the header against the body', async () => {
    const delivered = await firstDelivery();
    const headers = headersOf(delivered);
    expect(headers['webhook-api-version']).toBe('2027-01-15');
    const event = await verifyWebhook({ secret, headers, body: delivered.raw, apiVersion: '2027-01-15' });
    expect(event.apiVersion).toBe('2027-01-15');
    expect(await refusal(verifyWebhook({ secret, headers, body: delivered.raw, apiVersion: '2025-01-01' }))).toBe(
      'version',
    );
    const lying = { ...headers, 'webhook-api-version': '2025-01-01' };
    expect(await refusal(verifyWebhook({ secret, headers: lying, body: delivered.raw }))).toBe('body');
  });

  it('refuses a body holding a value its version does not have (D44, D54: no tracking claim type before 2027-01-15)', async () => {
    const signed = (apiVersion: string, claimType: string | null) => {
      const raw = JSON.stringify({
        id: 'ev_versioned',
        topic: 'claim/created',
        apiVersion,
        livemode: true,
        createdAt: new Date().toISOString(),
        body: {
          claimId: 'cl_1',
          storeId,
          sourceOrderId: 'o1',
          claimCategory: 'SHIPPING',
          claimType,
          claimState: 'NEW',
          items: [],
          risk: { level: 'low', signals: [] },
        },
      });
      const headers = { 'x-webhook-id': 'ev_versioned', 'x-webhook-timestamp': String(Math.floor(Date.now() / 1000)) };
      return { raw, headers: { ...headers, 'x-webhook-signature': `v1,${signatureOf(secret, { headers, raw })}` } };
    };
    const newest = signed('2027-01-15', 'LOST_IN_TRANSIT');
    await expect(verifyWebhook({ secret, ...newest, body: newest.raw })).resolves.toMatchObject({
      body: { claimType: 'LOST_IN_TRANSIT' },
    });
    for (const version of ['2026-12-01', '2025-01-01']) {
      const older = signed(version, 'LOST_IN_TRANSIT');
      expect(await refusal(verifyWebhook({ secret, ...older, body: older.raw }))).toBe('body');
      const asRendered = signed(version, null);
      await expect(verifyWebhook({ secret, ...asRendered, body: asRendered.raw })).resolves.toMatchObject({
        apiVersion: version,
      });
    }
  });

  it('verifies with either secret while a rotation signs under both (D34)', async () => {
    const rotated = await rotateWebhookSecret(server.db, rig.secretKey, clientId, ownerId);
    const after = await deliver('cl_rotated');
    expect(after.headers['x-webhook-signature']!.toString().split(' ')).toHaveLength(2);
    await expect(verifyWebhook({ secret, headers: headersOf(after), body: after.raw })).resolves.toBeDefined();
    await expect(
      verifyWebhook({ secret: rotated!.webhookSecret, headers: headersOf(after), body: after.raw }),
    ).resolves.toBeDefined();
    await expect(
      verifyWebhook({
        secret: ['svc_whsec_other', rotated!.webhookSecret],
        headers: headersOf(after),
        body: after.raw,
      }),
    ).resolves.toBeDefined();
  });
});
