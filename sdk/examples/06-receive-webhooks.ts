/**
 * 06 — Receive webhooks: a small HTTP handler that verifies each delivery before acting on
 * it, deduplicates by event id, and keeps working through a secret rotation.
 *
 *   SVC_BASE_URL=… SVC_STORE_ID=st_… SVC_DASHBOARD_TOKEN=… node --import tsx sdk/examples/06-receive-webhooks.ts
 *
 * The handler listens on 127.0.0.1; the service delivers there only when its operator allows
 * private webhook URLs (WEBHOOK_ALLOW_PRIVATE_URLS=true, for development). The example
 * registers an app with that URL, installs it, and has the service send test events.
 * In your code, import from '@protection-service/sdk'.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type TWebhookEvent, unwrap, verifyWebhook, WebhookVerificationError } from '../src/index';
import { env } from './env';

const settings = env();
const { baseUrl, storeId, redirectUri } = settings;

// The secrets the handler accepts: the current one, and the previous one during a rotation.
const secrets: string[] = [];
const seen = new Set<string>();

async function handle(event: TWebhookEvent): Promise<void> {
  if (seen.has(event.id)) return; // deliveries may repeat: act once per event id
  seen.add(event.id);
  console.log(`verified ${event.topic} for store ${event.body.storeId}`);
}

const handler = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    // The raw bytes, as received: a re-serialised JSON body would not match the signature.
    const event = await verifyWebhook({ secret: secrets, headers: req.headers, body: Buffer.concat(chunks) });
    await handle(event);
    res.writeHead(200).end();
  } catch (e) {
    if (!(e instanceof WebhookVerificationError)) throw e;
    console.log(`refused a delivery: ${e.reason}`);
    res.writeHead(400).end();
  }
});
await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', resolve));
const webhookUrl = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/webhooks`;

// Register an app that receives claim/approved at the handler, and install it on the store.
const dashboard = createClient({ baseUrl, accessToken: settings.dashboardToken });
const app = unwrap(
  await dashboard.apps.create({
    body: {
      name: 'Webhook example',
      redirectUris: [redirectUri],
      webhookUrl,
      webhookTopics: ['claim/approved'],
      requestedScopes: ['claim:read'],
      distribution: 'private',
    },
  }),
).data;
secrets.push(app.webhookSecret);
unwrap(await dashboard.oauth.approve({ body: { clientId: app.clientId, redirectUri, storeId } }));

// A test event: signed with the webhook secret, delivered at once.
const sent = unwrap(
  await dashboard.apps.testWebhook({ params: { clientId: app.clientId }, body: { topic: 'claim/approved', storeId } }),
).data;
console.log(`test event delivered: ${sent.delivered}`);

// A forged delivery (no valid signature) is refused.
await fetch(webhookUrl, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    'x-webhook-id': 'evt_forged',
    'x-webhook-timestamp': String(Math.floor(Date.now() / 1000)),
    'x-webhook-signature': `v1,${btoa('not the signature')}`,
  },
  body: '{}',
});

// Rotate the secret: accept both while deliveries signed with the old one may still arrive.
const rotated = unwrap(await dashboard.apps.rotateWebhookSecret({ params: { clientId: app.clientId } })).data;
secrets.unshift(rotated.webhookSecret);
const again = unwrap(
  await dashboard.apps.testWebhook({ params: { clientId: app.clientId }, body: { topic: 'claim/approved', storeId } }),
).data;
console.log(`after rotation, delivered: ${again.delivered}`);

handler.close();
