import { Writable } from 'node:stream';
import { SCOPES } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger';
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
});
