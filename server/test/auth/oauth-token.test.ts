import { createHash, randomBytes } from 'node:crypto';
import type { TCreatedApp } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStore } from '../../src/domain/identity/stores';
import { uninstall } from '../../src/domain/uninstall/uninstall';
import { bearer, createApp, createOwner, dashboardTokenFor, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** A response body, typed loosely for assertions. */
const json = (res: Response): Promise<any> => res.json();
/**
 * POST /v1/oauth/token (D11, D12) through HTTP: the three grants, client authentication, PKCE,
 * code and refresh-token replay, concurrency, and the RFC 6749 error shape (D2). Every answer
 * is checked for Cache-Control: no-store.
 */
describe('POST /v1/oauth/token', () => {
  let server: TestServer;
  let owner: Owner;
  let dash: string;
  let app: TCreatedApp;
  let other: TCreatedApp;
  const REDIRECT = 'https://app.example.com/callback';

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { auth: 10_000 } });
    owner = await createOwner(server.db, 'token');
    dash = await dashboardTokenFor(server, owner.user.id);
    app = await createApp(server, owner.user.id);
    other = await createApp(server, owner.user.id, { name: 'Other App' });
  });
  afterAll(async () => {
    await server.close();
  });

  type Params = Record<string, string | string[] | undefined>;
  interface Send {
    form?: boolean;
    basic?: [string, string];
    headers?: Record<string, string>;
  }

  /** Calls the token endpoint; every answer must be uncacheable (D11). */
  async function token(params: Params, opts: Send = {}): Promise<{ status: number; headers: Headers; body: any }> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.basic) {
      const [id, secret] = opts.basic.map(encodeURIComponent);
      headers.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
    }
    let res: Response;
    if (opts.form) {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) {
        for (const item of v === undefined ? [] : Array.isArray(v) ? v : [v]) form.append(k, item);
      }
      res = await server.request('/v1/oauth/token', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      });
    } else {
      res = await server.request('/v1/oauth/token', { method: 'POST', headers, json: params });
    }
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    return { status: res.status, headers: res.headers, body: await json(res) };
  }

  const creds = (a: TCreatedApp = app) => ({ client_id: a.clientId, client_secret: a.clientSecret });

  async function expectOAuthError(
    res: { status: number; body: Record<string, unknown> },
    status: number,
    error: string,
  ): Promise<void> {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({ statusCode: status, error, error_description: expect.any(String) });
    expect(res.body.error_description).toBe(res.body.message);
  }

  const pkce = (verifier = randomBytes(32).toString('base64url')) => ({
    verifier,
    challenge: createHash('sha256').update(verifier).digest('base64url'),
  });

  /** A fresh code through the approve endpoint (D10). */
  async function codeFor(extra: Record<string, unknown> = {}, forApp: TCreatedApp = app): Promise<string> {
    const res = await server.request('/v1/oauth/authorize/approve', {
      method: 'POST',
      headers: bearer(dash),
      json: { clientId: forApp.clientId, redirectUri: REDIRECT, storeId: owner.store.id, ...extra },
    });
    expect(res.status).toBe(200);
    return ((await json(res)) as { data: { code: string } }).data.code;
  }

  const exchange = (code: string, extra: Params = {}, opts: Send = {}) =>
    token(
      {
        grant_type: 'authorization_code',
        ...(opts.basic ? {} : creds()),
        code,
        redirect_uri: REDIRECT,
        ...extra,
      },
      opts,
    );

  async function freshTokens(scopes?: string[], forApp: TCreatedApp = app) {
    const code = await codeFor(scopes ? { scopes } : {}, forApp);
    const res = await token({ grant_type: 'authorization_code', ...creds(forApp), code, redirect_uri: REDIRECT });
    expect(res.status).toBe(200);
    return res.body as { access_token: string; refresh_token: string; scope: string };
  }

  const refresh = (refreshToken: string, extra: Params = {}, a: TCreatedApp = app) =>
    token({ grant_type: 'refresh_token', ...creds(a), refresh_token: refreshToken, ...extra });

  const settingsStatus = async (accessToken: string) =>
    (await server.request('/v2/settings', { headers: bearer(accessToken) })).status;

  /** D13: a revoked token answers 401 within about a second. */
  const expectRevoked = (accessToken: string) =>
    expect.poll(() => settingsStatus(accessToken), { timeout: 1500, interval: 100 }).toBe(401);

  describe('authorization_code', () => {
    it('exchanges a code form-encoded with HTTP Basic client authentication', async () => {
      const code = await codeFor();
      const res = await exchange(code, {}, { form: true, basic: [app.clientId, app.clientSecret] });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, refresh_token: expect.any(String) });
      expect(res.body.scope.split(' ').sort()).toEqual(
        ['order:read', 'order:update', 'partner-context:update', 'quote:read', 'store:read'].sort(),
      );
      expect(await settingsStatus(res.body.access_token)).toBe(200);
    });

    it('refuses a wrong redirect_uri (invalid_grant) without burning the code', async () => {
      const code = await codeFor();
      await expectOAuthError(await exchange(code, { redirect_uri: `${REDIRECT}/x` }), 400, 'invalid_grant');
      expect((await exchange(code)).status).toBe(200);
    });

    it('refuses an expired code, an unknown code and a code issued to another client', async () => {
      const code = await codeFor();
      await expectOAuthError(await exchange(code, creds(other)), 400, 'invalid_grant');
      await expectOAuthError(await exchange('svc_ac_unknown'), 400, 'invalid_grant');
      await server.db
        .updateTable('authorizationCodes')
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where('codeHash', '=', createHash('sha256').update(code).digest('hex'))
        .execute();
      await expectOAuthError(await exchange(code), 400, 'invalid_grant');
    });

    it('a reused code answers invalid_grant and revokes the tokens issued from it (D10)', async () => {
      const code = await codeFor();
      const first = await exchange(code);
      expect(first.status).toBe(200);
      expect(await settingsStatus(first.body.access_token)).toBe(200);
      await expectOAuthError(await exchange(code), 400, 'invalid_grant');
      await expectRevoked(first.body.access_token);
      await expectOAuthError(await refresh(first.body.refresh_token), 400, 'invalid_grant');
    });

    it('of two concurrent exchanges of one code exactly one succeeds', async () => {
      const code = await codeFor();
      const results = await Promise.all([exchange(code), exchange(code)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      const loser = results.find((r) => r.status === 400)!;
      expect(loser.body.error).toBe('invalid_grant');
    });

    describe('PKCE (RFC 7636, D10, D11)', () => {
      it('needs the verifier that hashes to the stored challenge; failures do not burn the code', async () => {
        const { verifier, challenge } = pkce();
        const code = await codeFor({ codeChallenge: challenge, codeChallengeMethod: 'S256' });
        await expectOAuthError(await exchange(code), 400, 'invalid_grant'); // missing
        await expectOAuthError(await exchange(code, { code_verifier: pkce().verifier }), 400, 'invalid_grant'); // wrong
        const ok = await exchange(code, { code_verifier: verifier });
        expect(ok.status).toBe(200);
      });

      it('refuses verifiers outside 43-128 characters of [A-Za-z0-9-._~] as invalid_request', async () => {
        const { challenge } = pkce();
        const code = await codeFor({ codeChallenge: challenge, codeChallengeMethod: 'S256' });
        for (const bad of ['a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}+`, `${'a'.repeat(42)}=`]) {
          await expectOAuthError(await exchange(code, { code_verifier: bad }), 400, 'invalid_request');
        }
      });

      it('accepts verifiers of exactly 43 and 128 characters', async () => {
        for (const length of [43, 128]) {
          const { verifier, challenge } = pkce('a-._~Z9'.repeat(20).slice(0, length));
          const code = await codeFor({ codeChallenge: challenge, codeChallengeMethod: 'S256' });
          expect((await exchange(code, { code_verifier: verifier })).status).toBe(200);
        }
      });

      it('refuses a verifier for a code issued without a challenge (invalid_grant)', async () => {
        const code = await codeFor();
        await expectOAuthError(await exchange(code, { code_verifier: pkce().verifier }), 400, 'invalid_grant');
        expect((await exchange(code)).status).toBe(200);
      });
    });
  });

  describe('client authentication and request errors', () => {
    it('refuses credentials both as HTTP Basic and in the body (invalid_request)', async () => {
      const code = await codeFor();
      const res = await token(
        { grant_type: 'authorization_code', ...creds(), code, redirect_uri: REDIRECT },
        { basic: [app.clientId, app.clientSecret] },
      );
      await expectOAuthError(res, 400, 'invalid_request');
      const form = await token(
        { grant_type: 'authorization_code', client_id: app.clientId, code, redirect_uri: REDIRECT },
        { form: true, basic: [app.clientId, app.clientSecret] },
      );
      await expectOAuthError(form, 400, 'invalid_request');
    });

    it('answers 401 invalid_client for a wrong secret, an unknown client or no authentication', async () => {
      const code = await codeFor();
      const body = await exchange(code, { client_secret: 'svc_secret_wrong' });
      await expectOAuthError(body, 401, 'invalid_client');
      expect(body.headers.get('www-authenticate')).toBeNull();

      const basic = await exchange(code, {}, { basic: [app.clientId, 'svc_secret_wrong'] });
      await expectOAuthError(basic, 401, 'invalid_client');
      expect(basic.headers.get('www-authenticate')).toMatch(/^Basic /);

      await expectOAuthError(await exchange(code, { client_id: 'svc_app_nope' }), 401, 'invalid_client');
      await expectOAuthError(
        await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }),
        401,
        'invalid_client',
      );
      // An Authorization header that is not HTTP Basic is no client authentication.
      const bearerAuth = await token(
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
        { headers: { authorization: 'Bearer x' } },
      );
      await expectOAuthError(bearerAuth, 401, 'invalid_client');
      expect(bearerAuth.headers.get('www-authenticate')).toMatch(/^Basic /);
      // None of these used the code.
      expect((await exchange(code)).status).toBe(200);
    });

    it('refuses a repeated form parameter (invalid_request)', async () => {
      const code = await codeFor();
      for (const params of [
        { grant_type: 'authorization_code', ...creds(), code: [code, code], redirect_uri: REDIRECT },
        { grant_type: ['authorization_code', 'authorization_code'], ...creds(), code, redirect_uri: REDIRECT },
        {
          grant_type: 'client_credentials',
          ...creds(),
          store_id: owner.store.id,
          scopes: ['order:read', 'store:read'],
        },
      ]) {
        const res = await token(params, { form: true });
        await expectOAuthError(res, 400, 'invalid_request');
        expect(res.body.message).toMatch(/^repeated parameter/);
      }
      // The code was not used by any of them.
      expect((await exchange(code)).status).toBe(200);
    });

    it('answers unsupported_grant_type for an unknown grant and invalid_request for a malformed body', async () => {
      await expectOAuthError(await token({ grant_type: 'password', ...creds() }), 400, 'unsupported_grant_type');
      await expectOAuthError(
        await token({ grant_type: 'password', ...creds() }, { form: true }),
        400,
        'unsupported_grant_type',
      );
      const missing = await token({ ...creds(), code: 'x' });
      await expectOAuthError(missing, 400, 'invalid_request');
      expect(missing.body.issues).toEqual(expect.any(Array));
      await expectOAuthError(
        await token({ grant_type: 'authorization_code', ...creds(), code: 'x', redirect_uri: REDIRECT, extra: '1' }),
        400,
        'invalid_request',
      );
      const res = await server.request('/v1/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"grant_type":',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await json(res)).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
    });
  });

  describe('refresh_token (D12)', () => {
    it('rotates: a new refresh token each time, the new access token works', async () => {
      const first = await freshTokens();
      const second = await refresh(first.refresh_token);
      expect(second.status).toBe(200);
      expect(second.body.refresh_token).toMatch(/^svc_rt_/);
      expect(second.body.refresh_token).not.toBe(first.refresh_token);
      expect(second.body.access_token).not.toBe(first.access_token);
      expect(second.body.scope).toBe(first.scope);
      expect(await settingsStatus(second.body.access_token)).toBe(200);
      const third = await refresh(second.body.refresh_token, {}, app);
      expect(third.status).toBe(200);
      // Stored as digests only (D5).
      const rows = await server.db.selectFrom('refreshTokens').select('tokenHash').execute();
      expect(JSON.stringify(rows)).not.toContain(third.body.refresh_token);
    });

    it('refreshes form-encoded with HTTP Basic and a space-separated scope', async () => {
      const first = await freshTokens();
      const res = await token(
        { grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'read_orders store:read' },
        { form: true, basic: [app.clientId, app.clientSecret] },
      );
      expect(res.status).toBe(200);
      expect(res.body.scope).toBe('order:read store:read');
    });

    it('a retired refresh token presented again revokes the whole family', async () => {
      const first = await freshTokens();
      const second = await refresh(first.refresh_token);
      expect(second.status).toBe(200);
      await expectOAuthError(await refresh(first.refresh_token), 400, 'invalid_grant');
      await expectRevoked(second.body.access_token);
      await expectRevoked(first.access_token);
      await expectOAuthError(await refresh(second.body.refresh_token), 400, 'invalid_grant');
    });

    it('of two concurrent refreshes with one token exactly one succeeds', async () => {
      const first = await freshTokens();
      const results = await Promise.all([refresh(first.refresh_token), refresh(first.refresh_token)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(results.find((r) => r.status === 400)!.body.error).toBe('invalid_grant');
    });

    it("refuses client A's refresh token used by client B (invalid_grant), leaving it usable by A", async () => {
      const first = await freshTokens();
      await expectOAuthError(await refresh(first.refresh_token, {}, other), 400, 'invalid_grant');
      expect((await refresh(first.refresh_token)).status).toBe(200);
    });

    it('narrows scopes, never widens them (invalid_scope)', async () => {
      const first = await freshTokens(['store:read', 'order:read']);
      const narrowed = await refresh(first.refresh_token, { scopes: ['order:read'] });
      expect(narrowed.status).toBe(200);
      expect(narrowed.body.scope).toBe('order:read');
      const denied = await server.request('/v2/settings', { headers: bearer(narrowed.body.access_token) });
      expect(denied.status).toBe(403);
      expect(((await json(denied)) as { message: string }).message).toContain('store:read');
      // The rotated refresh token keeps the grant's scopes (RFC 6749 §6).
      const back = await refresh(narrowed.body.refresh_token);
      expect(back.body.scope).toBe('store:read order:read');

      await expectOAuthError(
        await refresh(back.body.refresh_token, { scopes: ['order:update'] }),
        400,
        'invalid_scope',
      );
      await expectOAuthError(await refresh(back.body.refresh_token, { scopes: ['nope:read'] }), 400, 'invalid_scope');
      await expectOAuthError(
        await refresh(back.body.refresh_token, { scopes: ['write_settings'] }),
        400,
        'invalid_scope',
      );
      // A refused widening does not use the token up.
      expect((await refresh(back.body.refresh_token)).status).toBe(200);
    });

    it('refuses garbage and access tokens as refresh tokens', async () => {
      const first = await freshTokens();
      await expectOAuthError(await refresh('svc_rt_unknown'), 400, 'invalid_grant');
      await expectOAuthError(await refresh(first.access_token), 400, 'invalid_grant');
    });

    it('refuses a refresh once the app is uninstalled (invalid_grant)', async () => {
      const owner2 = await createOwner(server.db, 'token-uninstall');
      const dash2 = await dashboardTokenFor(server, owner2.user.id);
      const approved = await server.request('/v1/oauth/authorize/approve', {
        method: 'POST',
        headers: bearer(dash2),
        json: { clientId: app.clientId, redirectUri: REDIRECT, storeId: owner2.store.id },
      });
      const { data } = (await json(approved)) as { data: { code: string } };
      const tokens = await exchange(data.code);
      expect(tokens.status).toBe(200);
      await expect(uninstall(server.db, owner2.user.id, owner2.store.id, app.clientId)).resolves.toBeUndefined();
      await expectOAuthError(await refresh(tokens.body.refresh_token), 400, 'invalid_grant');
    });
  });

  describe('client_credentials', () => {
    const cc = (extra: Params = {}, a: TCreatedApp = app, opts: Send = {}) =>
      token({ grant_type: 'client_credentials', ...creds(a), store_id: owner.store.id, ...extra }, opts);

    it('issues an access token with the installation scopes and no refresh token', async () => {
      await codeFor({ scopes: ['store:read', 'order:read'] }); // installs with these scopes
      const res = await cc();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        access_token: expect.stringMatching(/^svc_at_/),
        token_type: 'Bearer',
        expires_in: 3600,
        scope: 'store:read order:read',
      });
      expect(await settingsStatus(res.body.access_token)).toBe(200);
    });

    it('filters by requested scopes (array, alias, or form scope string)', async () => {
      await codeFor({ scopes: ['store:read', 'order:read'] });
      expect((await cc({ scopes: ['read_orders'] })).body.scope).toBe('order:read');
      const form = await token(
        { grant_type: 'client_credentials', store_id: owner.store.id, scope: 'order:read' },
        { form: true, basic: [app.clientId, app.clientSecret] },
      );
      expect(form.status).toBe(200);
      expect(form.body.scope).toBe('order:read');
      expect(await settingsStatus(form.body.access_token)).toBe(403);
    });

    it('refuses scopes beyond the installation (invalid_scope)', async () => {
      await codeFor({ scopes: ['store:read', 'order:read'] });
      await expectOAuthError(await cc({ scopes: ['order:read', 'quote:read'] }), 400, 'invalid_scope');
      await expectOAuthError(await cc({ scopes: ['write_settings'] }), 400, 'invalid_scope');
    });

    it('refuses a store the app is not installed on (invalid_grant), and requires store_id', async () => {
      const foreign = await createStore(server.db, { name: 'Not installed', domain: 'cc-none.example.com' });
      await expectOAuthError(await cc({ store_id: foreign.id }), 400, 'invalid_grant');
      await expectOAuthError(await cc({ store_id: 'st_unknown' }), 400, 'invalid_grant');
      await expectOAuthError(await cc({ store_id: undefined }), 400, 'invalid_request');
      const fresh = await createApp(server, owner.user.id, { name: 'Never installed' });
      await expectOAuthError(await cc({}, fresh), 400, 'invalid_grant');
    });
  });
});
