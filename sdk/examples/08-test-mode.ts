/**
 * 08 — Test mode: a test store of your own, a claim driven to APPROVED with the test helpers,
 * and its webhook received and verified, without touching a live store.
 *
 *   SVC_BASE_URL=… SVC_DASHBOARD_TOKEN=… node --import tsx sdk/examples/08-test-mode.ts
 *
 * The webhook handler listens on 127.0.0.1; the service delivers there only when its operator
 * allows private webhook URLs (WEBHOOK_ALLOW_PRIVATE_URLS=true, for development). In your
 * code, import from '@protection-service/sdk'.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientCredentials, createClient, type TWebhookEvent, unwrap, verifyWebhook } from '../src/index';
import { env } from './env';
import { within } from './within';

const settings = env();
const { baseUrl, redirectUri } = settings;

// A handler for the test store's events: it verifies each delivery, as in production.
let webhookSecret = '';
let approvedSeen: (event: TWebhookEvent) => void = () => {};
const approved = new Promise<TWebhookEvent>((resolve) => {
  approvedSeen = resolve;
});
const handler = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const event = await verifyWebhook({ secret: webhookSecret, headers: req.headers, body: Buffer.concat(chunks) });
  if (event.topic === 'claim/approved') approvedSeen(event);
  res.writeHead(200).end();
});
await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', resolve));
const testWebhookUrl = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/test-webhooks`;

// 1. Register the app (its answer shows the test client secret once) and make a test store.
//    Live events go to webhookUrl, the test stores' events to testWebhookUrl only.
const dashboard = createClient({ baseUrl, accessToken: settings.dashboardToken });
const app = unwrap(
  await dashboard.apps.create({
    body: {
      name: 'Test mode example',
      redirectUris: [redirectUri],
      webhookUrl: 'https://partner.example.com/webhooks',
      webhookTopics: ['claim/created', 'claim/approved'],
      requestedScopes: ['order:update', 'claim:manage', 'claim:read'],
      distribution: 'public',
    },
  }),
).data;
webhookSecret = app.webhookSecret;
unwrap(await dashboard.apps.update({ params: { clientId: app.clientId }, body: { testWebhookUrl } }));
const store = unwrap(
  await dashboard.apps.createTestStore({ params: { clientId: app.clientId }, body: { name: 'Example dev shop' } }),
).data;
console.log(`test store ${store.domain}, livemode ${store.livemode}`);

// 2. A client on the test store with the test client secret: its tokens are test tokens.
const client = createClient({
  baseUrl,
  auth: clientCredentials({ clientId: app.clientId, clientSecret: app.testClientSecret, storeId: store.id }),
});
console.log(`client.livemode: ${client.livemode}`);

// 3. An order and a claim, as your integration would write them.
unwrap(
  await client.orders.upsert({
    params: { sourceOrderId: 'test-1001' },
    body: {
      sourceOrderNumber: '#1001',
      currency: 'USD',
      platformId: 'shopify',
      total: 120,
      premiumPaid: 2.4,
      sourceCreatedAt: new Date().toISOString(),
    },
  }),
);
const filed = await client.claims.file({
  params: { sourceOrderId: 'test-1001' },
  body: {
    email: 'shopper@example.com',
    salesChannel: 'ONLINE',
    claimCategory: 'SHIPPING',
    fulfillmentIssues: [{ issues: [{ issueType: 'DAMAGED', quantity: 1 }] }],
    resolution: { desiredMethod: 'STORE_CREDIT' },
  },
});
const claimId = filed.headers.get('location')!.replace('/v1/claims/', '');

// 4. Drive it to APPROVED as the merchant would: the same event, store credit and e-mail.
const claim = unwrap(
  await client.testHelpers.advanceClaim({
    params: { claimId },
    body: { claimState: 'APPROVED', resolutions: [{ type: 'STORE_CREDIT', paidValue: 25 }] },
  }),
);
console.log(`claim ${claim.claimState}, store credit e-mail ${claim.claimStoreCredits[0]?.emailStatus}`);

// 5. The webhook arrives, signed like a live one; `livemode: false` says it is a test store's.
//    A delivery that failed would be retried on its schedule: flush makes it due now.
await client.testHelpers.flushDeliveries();
const event = await within(approved, 30_000, 'no claim/approved webhook');
console.log(`verified ${event.topic}, livemode ${event.livemode}`);

// 6. The e-mails the store would have sent, and a clean slate for the next run.
const mail = unwrap(await client.testHelpers.listMail()).messages;
console.log(`e-mails kept, not sent: ${mail.length}; newest: ${mail[0]?.subject}`);
unwrap(await client.testHelpers.reset());
unwrap(await dashboard.apps.deleteTestStore({ params: { clientId: app.clientId, storeId: store.id } }));
console.log('test store deleted');
handler.close();
