import { Writable } from 'node:stream';
import { SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger';
import { claimBody, claimStore } from '../harness/claims';
import { pageSession } from '../harness/dashboard';
import { answered, bearer, createApp, createOwner, installWithToken } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** Logs carry requests, never an Authorization header, a secret, a password or a token. */
describe('logs', () => {
  let server: TestServer;
  let lines = '';
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines += chunk.toString();
        done();
      },
    });
    server = await startTestServer({}, { logger: createLogger('trace', sink) });
  });
  afterAll(async () => {
    await server.close();
  });

  it('hold no credential after logins, token requests and authenticated calls', async () => {
    const owner = await createOwner(server.db, 'logs');
    const app = await createApp(server, owner.user.id, { requestedScopes: [...SCOPES] });
    const { accessToken } = await installWithToken(server, app.clientId, owner.store.id, ['store:read']);
    const secrets = [owner.password, app.clientSecret, app.webhookSecret, accessToken];

    await server.request('/v1/auth/login', {
      method: 'POST',
      json: { email: owner.user.email, password: owner.password },
    });
    await server.request('/v1/auth/login', {
      method: 'POST',
      json: { email: owner.user.email, password: 'wrong-password' },
    });
    const cc = await server.api().oauth.token({
      body: {
        grant_type: 'client_credentials',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        store_id: owner.store.id,
      },
    });
    const issued = answered(cc, 200).access_token;
    secrets.push(issued);
    const basic = Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64');
    await server.request('/v1/oauth/token', {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&store_id=${owner.store.id}`,
    });
    await server.request('/v2/settings', { headers: bearer(accessToken) });
    await server.request('/v2/settings', { headers: bearer(issued) });
    await server.request(`/v2/settings?token=${encodeURIComponent(accessToken)}`, { headers: bearer('svc_at_forged') });
    await server.request('/v1/oauth/revoke', {
      method: 'POST',
      json: { token: issued, client_id: app.clientId, client_secret: app.clientSecret },
    });

    expect(lines).toContain('"path":"/v1/oauth/token"');
    expect(lines).toContain('"status":401');
    expect(lines.toLowerCase()).not.toContain('authorization');
    expect(lines).not.toContain(basic);
    for (const secret of secrets) expect(lines.includes(secret), 'a credential reached the log').toBe(false);
  });

  it("name the request, its app and its store on every line it causes, the domain's too, never the shopper", async () => {
    const store = await claimStore(server, 'log-fields');
    const shopper = { email: 'log.shopper@example.com', name: 'Ada Lovelace-Logline', phone: '+15550101999' };
    const before = lines.length;
    await store.putOrder('log-1', {
      premiumPaid: 2.5,
      customerEmail: shopper.email,
      customerName: shopper.name,
      customerPhone: shopper.phone,
    });
    const filed = await store.file('log-1', claimBody({ email: shopper.email }), {
      'x-request-id': 'req-log-fields-1',
    });
    expect(filed.status).toBe(200);
    expect(filed.headers.get('x-request-id')).toBe('req-log-fields-1');
    const written = lines
      .slice(before)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.requestId === 'req-log-fields-1');
    // The domain's line (the claim's webhook event, written in domain/webhooks) and the access line.
    const domain = written.find((l) => l.msg === 'webhook event recorded');
    const access = written.find((l) => l.msg === 'request');
    expect(domain, lines.slice(before)).toBeDefined();
    expect(access).toBeDefined();
    for (const line of [domain!, access!]) {
      expect(line).toMatchObject({
        requestId: 'req-log-fields-1',
        clientId: store.clientId,
        storeId: store.owner.store.id,
      });
    }
    const text = lines.slice(before);
    expect(text).not.toContain(shopper.email);
    expect(text).not.toContain(shopper.name);
    expect(text).not.toContain(shopper.phone);
    expect(text).not.toContain(store.token);
  });

  it("name the request, the store and the person on the lines of a dashboard form's POST, its form read first", async () => {
    const store = await claimStore(server, 'log-form');
    await store.putOrder('log-form-1', { premiumPaid: 1 });
    const claimId = await store.fileId('log-form-1');
    const session = await pageSession(server, { email: store.owner.user.email, password: store.owner.password });
    const before = lines.length;
    const path = `/dashboard/stores/${store.owner.store.id}/claims/${claimId}/note`;
    const posted = await server.request(path, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: session.cookie,
        origin: server.baseUrl,
        'content-type': 'application/x-www-form-urlencoded',
        'x-request-id': 'req-log-form-1',
      },
      body: new URLSearchParams({ csrf: session.csrf, note: 'Called the carrier' }),
    });
    expect(posted.status).toBe(303);
    const written = lines
      .slice(before)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.requestId === 'req-log-form-1');
    // The page's own access line (its path is the page's template), written once the form was
    // read by the body parser: the person and the store come from the request's context.
    const page = written.find(
      (l) => l.msg === 'request' && l.path === '/dashboard/stores/:storeId/claims/:claimId/note',
    );
    expect(page, lines.slice(before)).toMatchObject({
      requestId: 'req-log-form-1',
      storeId: store.owner.store.id,
      userId: store.owner.user.id,
    });
    // The API calls the page made carry its request id.
    expect(written.some((l) => l.msg === 'request' && l.path === `/v1/claims/${claimId}/notes`)).toBe(true);
  });
});
