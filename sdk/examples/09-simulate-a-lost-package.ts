/**
 * 09 — Simulate a lost package in test mode: a package scanned once and never again, the
 * tracking rules run eight days later, and the claim the service files by itself (D54), with
 * its webhooks and the shopper's e-mail, without waiting a week or touching a live store.
 *
 *   SVC_BASE_URL=… SVC_DASHBOARD_TOKEN=… node --import tsx sdk/examples/09-simulate-a-lost-package.ts
 *
 * As in 08, the webhook handler listens on 127.0.0.1 (the service must allow private webhook
 * URLs, WEBHOOK_ALLOW_PRIVATE_URLS=true, for development). In your code, import from
 * '@protection-service/sdk'.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientCredentials, createClient, type TWebhookEvent, unwrap, verifyWebhook } from '../src/index';
import { env } from './env';
import { within } from './within';

const settings = env();
const { baseUrl, redirectUri } = settings;
const DAY = 86_400_000;

// A handler that keeps the test store's verified events by topic.
let webhookSecret = '';
const received = new Map<string, TWebhookEvent>();
let allReceived: () => void = () => {};
const both = new Promise<void>((resolve) => {
  allReceived = resolve;
});
const handler = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const event = await verifyWebhook({ secret: webhookSecret, headers: req.headers, body: Buffer.concat(chunks) });
  received.set(event.topic, event);
  if (received.has('claim/created') && received.has('tracking/alert')) allReceived();
  res.writeHead(200).end();
});
await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', resolve));
const testWebhookUrl = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/test-webhooks`;

// 1. An app that listens to claim/created and tracking/alert, and a test store of it.
const dashboard = createClient({ baseUrl, accessToken: settings.dashboardToken });
const app = unwrap(
  await dashboard.apps.create({
    body: {
      name: 'Lost package example',
      redirectUris: [redirectUri],
      webhookUrl: 'https://partner.example.com/webhooks',
      webhookTopics: ['claim/created', 'tracking/alert'],
      requestedScopes: ['order:update', 'claim:read'],
      distribution: 'public',
    },
  }),
).data;
webhookSecret = app.webhookSecret;
unwrap(await dashboard.apps.update({ params: { clientId: app.clientId }, body: { testWebhookUrl } }));
const store = unwrap(
  await dashboard.apps.createTestStore({ params: { clientId: app.clientId }, body: { name: 'Lost package shop' } }),
).data;

// 2. Its tracking rules in `file` mode. You own your test store, so your dashboard token
//    writes its settings as a merchant's owner does on a live one.
const rules = unwrap(
  await dashboard.tracking.updateSettings({ params: { storeId: store.id }, body: { mode: 'file' } }),
).data;
console.log(`test store ${store.domain}, tracking mode ${rules.mode}, lost after ${rules.lostNoMovementDays} days`);

// 3. A protected order and its fulfillment with a tracking number, with the test client secret.
const client = createClient({
  baseUrl,
  auth: clientCredentials({ clientId: app.clientId, clientSecret: app.testClientSecret, storeId: store.id }),
});
unwrap(
  await client.orders.upsert({
    params: { sourceOrderId: 'lost-1001' },
    body: {
      sourceOrderNumber: '#1001',
      currency: 'USD',
      platformId: 'shopify',
      total: 120,
      premiumPaid: 2.4,
      customerEmail: 'shopper@example.com',
      lineItems: [{ sourceItemId: 'mug', quantity: 1 }],
      sourceCreatedAt: new Date().toISOString(),
    },
  }),
);
unwrap(
  await client.orders.upsertFulfillment({
    params: { sourceOrderId: 'lost-1001', sourceFulfillmentId: 'ful-1' },
    body: { fulfillmentStatus: 'FULFILLED', trackingNumber: ['LOST-1001'] },
  }),
);

// 4. One carrier scan an hour ago, then silence. (The service itself evaluates as of its own
//    clock after each event: a scan more than a week old would be filed at once.)
const scannedAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
const pkg = unwrap(
  await client.testHelpers.addTrackingEvents({
    body: {
      sourceOrderId: 'lost-1001',
      sourceFulfillmentId: 'ful-1',
      trackingNumber: 'LOST-1001',
      events: [{ occurredAt: scannedAt.toISOString(), status: 'in_transit', description: 'Departed facility' }],
    },
  }),
);
console.log(`package ${pkg.trackingNumber}: ${pkg.status} since ${pkg.lastScanAt}`);

// 5. The rules as if eight days had passed: no scan for more than 7 days, so the package is lost
//    and, in `file` mode, the service files its claim.
const asOf = new Date(scannedAt.getTime() + 8 * DAY).toISOString();
const [decision] = unwrap(await client.testHelpers.evaluateTracking({ body: { asOf } })).decisions;
console.log(`as of ${asOf}: ${decision?.rule}, ${decision?.action}: ${decision?.reason}`);
const claim = unwrap(await client.claims.get({ params: { claimId: decision!.claimId! } }));
console.log(
  `claim ${claim.id} ${claim.claimState}, ${claim.claimType}, filed from ${claim.claimFiledFrom} by ${claim.externalSource}`,
);

// 6. Its claim/created and tracking/alert, signed like live ones; flush makes them due now.
await client.testHelpers.flushDeliveries();
await within(both, 30_000, 'no claim/created and tracking/alert');
const created = received.get('claim/created');
const alert = received.get('tracking/alert');
if (created?.topic === 'claim/created') console.log(`verified claim/created, claimType ${created.body.claimType}`);
if (alert?.topic === 'tracking/alert') console.log(`verified tracking/alert: ${alert.body.rule}, ${alert.body.action}`);

// 7. The shopper's e-mail, kept and not sent, and the rules asked again: the package has its claim.
const mail = unwrap(await client.testHelpers.listMail()).messages;
console.log(`shopper's e-mail to ${mail[0]?.to}: ${mail[0]?.subject}`);
const [again] = unwrap(await client.testHelpers.evaluateTracking({ body: { asOf } })).decisions;
console.log(`asked again: ${again?.action}: ${again?.reason}`);

unwrap(await dashboard.apps.deleteTestStore({ params: { clientId: app.clientId, storeId: store.id } }));
console.log('test store deleted');
handler.close();
