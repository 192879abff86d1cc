import type { TCreatedApp } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  createApp,
  createOwner,
  dashboardTokenFor,
  type Owner,
  withinOneRateWindow,
} from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** A response body, typed loosely for assertions. */
const json = (res: Response): Promise<any> => res.json();
/** POST /v1/oauth/revoke (RFC 7009, D13) through HTTP. */
describe('POST /v1/oauth/revoke', () => {
  let server: TestServer;
  let owner: Owner;
  let dash: string;
  let app: TCreatedApp;
  let other: TCreatedApp;
  const REDIRECT = 'https://app.example.com/callback';

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { auth: 10_000 } });
    owner = await createOwner(server.db, 'revoke');
    dash = await dashboardTokenFor(server, owner.user.id);
    app = await createApp(server, owner.user.id);
    other = await createApp(server, owner.user.id, { name: 'Other App' });
  });
  afterAll(async () => {
    await server.close();
  });

  const creds = (a: TCreatedApp = app) => ({ client_id: a.clientId, client_secret: a.clientSecret });
  const basic = (a: TCreatedApp) => `Basic ${Buffer.from(`${a.clientId}:${a.clientSecret}`).toString('base64')}`;

  async function post(
    path: string,
    params: Record<string, string>,
    opts: { form?: boolean; authorization?: string } = {},
  ): Promise<{ status: number; headers: Headers; body: any }> {
    const headers: Record<string, string> = opts.authorization ? { authorization: opts.authorization } : {};
    const res = opts.form
      ? await server.request(path, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(params).toString(),
        })
      : await server.request(path, { method: 'POST', headers, json: params });
    expect(res.headers.get('cache-control')).toBe('no-store');
    return { status: res.status, headers: res.headers, body: await json(res) };
  }
  const revoke = (params: Record<string, string>, opts: { form?: boolean; authorization?: string } = {}) =>
    post('/v1/oauth/revoke', params, opts);

  /** Tokens through the real install dance (D10, D11). */
  async function freshTokens(forApp: TCreatedApp = app): Promise<{ access_token: string; refresh_token: string }> {
    const approved = await server.request('/v1/oauth/authorize/approve', {
      method: 'POST',
      headers: bearer(dash),
      json: { clientId: forApp.clientId, redirectUri: REDIRECT, storeId: owner.store.id },
    });
    const { data } = await json(approved);
    const res = await post('/v1/oauth/token', {
      grant_type: 'authorization_code',
      ...creds(forApp),
      code: data.code,
      redirect_uri: REDIRECT,
    });
    expect(res.status).toBe(200);
    return res.body;
  }

  const settingsStatus = async (accessToken: string) =>
    (await server.request('/v2/settings', { headers: bearer(accessToken) })).status;
  /** D13: within about a second on every process. */
  const expectRevoked = (accessToken: string) =>
    expect.poll(() => settingsStatus(accessToken), { timeout: 1500, interval: 100 }).toBe(401);

  it('revokes an access token: 200 {} and the token answers 401 within a second', async () => {
    const tokens = await freshTokens();
    expect(await settingsStatus(tokens.access_token)).toBe(200);
    const res = await revoke({ token: tokens.access_token, ...creds() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    await expectRevoked(tokens.access_token);
    // Only the access token: the refresh token still works (RFC 7009 §2.1 leaves it optional).
    const refreshed = await post('/v1/oauth/token', {
      grant_type: 'refresh_token',
      ...creds(),
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(200);
  });

  it('applies a revocation before answering: a strict client calling at once gets 401 from the same process', async () => {
    for (let i = 0; i < 5; i++) {
      const tokens = await freshTokens();
      expect(await settingsStatus(tokens.access_token)).toBe(200);
      expect((await revoke({ token: tokens.access_token, ...creds() })).status).toBe(200);
      expect(await settingsStatus(tokens.access_token)).toBe(401);
    }
    // A replayed refresh token revokes its family (D12) before the invalid_grant answer.
    const tokens = await freshTokens();
    const refresh = { grant_type: 'refresh_token', ...creds(), refresh_token: tokens.refresh_token };
    const rotated = await post('/v1/oauth/token', refresh);
    expect(rotated.status).toBe(200);
    expect(await settingsStatus(rotated.body.access_token)).toBe(200);
    expect((await post('/v1/oauth/token', refresh)).body.error).toBe('invalid_grant');
    expect(await settingsStatus(rotated.body.access_token)).toBe(401);
    expect(await settingsStatus(tokens.access_token)).toBe(401);
    // An uninstall through the dashboard route.
    const last = await freshTokens(other);
    expect(await settingsStatus(last.access_token)).toBe(200);
    const uninstalled = await server.request(`/v1/stores/${owner.store.id}/installations/${other.clientId}`, {
      method: 'DELETE',
      headers: bearer(dash),
    });
    expect(uninstalled.status).toBe(200);
    expect(await settingsStatus(last.access_token)).toBe(401);
  });

  it('revokes a refresh token and its whole family, access tokens included (form + Basic, wrong hint)', async () => {
    const tokens = await freshTokens();
    const res = await revoke(
      { token: tokens.refresh_token, token_type_hint: 'access_token' },
      { form: true, authorization: basic(app) },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    await expectRevoked(tokens.access_token);
    const refreshed = await post('/v1/oauth/token', {
      grant_type: 'refresh_token',
      ...creds(),
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('answers 200 {} for unknown, garbage and already revoked tokens', async () => {
    for (const token of ['svc_rt_unknown', 'svc_at_not.a.jwt', 'whatever']) {
      const res = await revoke({ token, ...creds(), token_type_hint: 'refresh_token' });
      expect(res.status, token).toBe(200);
      expect(res.body).toEqual({});
    }
    const tokens = await freshTokens();
    expect((await revoke({ token: tokens.refresh_token, ...creds() })).status).toBe(200);
    expect((await revoke({ token: tokens.refresh_token, ...creds() })).status).toBe(200);
  });

  it("changes nothing for another client's tokens, and still answers 200", async () => {
    const tokens = await freshTokens();
    expect((await revoke({ token: tokens.access_token, ...creds(other) })).status).toBe(200);
    expect((await revoke({ token: tokens.refresh_token, ...creds(other) })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1200));
    expect(await settingsStatus(tokens.access_token)).toBe(200);
    const refreshed = await post('/v1/oauth/token', {
      grant_type: 'refresh_token',
      ...creds(),
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(200);
  });

  it('answers 401 invalid_client without client authentication or with a wrong secret', async () => {
    const tokens = await freshTokens();
    for (const [params, authorization] of [
      [{ token: tokens.access_token }, undefined],
      [{ token: tokens.access_token, client_id: app.clientId, client_secret: 'svc_secret_wrong' }, undefined],
      [{ token: tokens.access_token, client_id: app.clientId }, undefined],
      [{ token: tokens.access_token }, `Basic ${Buffer.from(`${app.clientId}:nope`).toString('base64')}`],
    ] as const) {
      const res = await revoke({ ...params }, { authorization });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({
        statusCode: 401,
        error: 'invalid_client',
        error_description: expect.any(String),
      });
    }
    // Nothing was revoked by the refused calls.
    await new Promise((r) => setTimeout(r, 1200));
    expect(await settingsStatus(tokens.access_token)).toBe(200);
  });

  it('refuses credentials in both places and repeated parameters (invalid_request)', async () => {
    const both = await revoke({ token: 'x', ...creds() }, { authorization: basic(app) });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
    const res = await server.request('/v1/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app) },
      body: 'token=a&token=b',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await json(res)).toMatchObject({ error: 'invalid_request', message: 'repeated parameter: token' });
  });
});

describe('OAuth endpoint rate limit (D4)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { auth: 2 } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 429 in the OAuth error shape, uncacheable, with Retry-After', async () => {
    const call = () => server.request('/v1/oauth/revoke', { method: 'POST', json: { token: 'x' } });
    // The limit counts per clock minute (D4): the three calls all fall in one.
    await withinOneRateWindow();
    expect((await call()).status).toBe(401);
    expect((await call()).status).toBe(401);
    const res = await call();
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await json(res)).toMatchObject({
      statusCode: 429,
      error: 'Too Many Requests',
      error_description: expect.any(String),
    });
  });
});
