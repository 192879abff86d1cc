import { createHash } from 'node:crypto';
import type { TCreatedApp } from '@protection-service/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createStore } from '../../server/src/domain/identity/stores';
import {
  bearer,
  createApp,
  createOwner,
  dashboardTokenFor,
  installWithToken,
  type Owner,
} from '../../server/test/harness/fixtures';
import { startTestServer, type TestServer } from '../../server/test/harness/server';
import {
  authorizationCode,
  authorizeUrl,
  type Client,
  clientCredentials,
  createClient,
  createPkcePair,
  exchangeCode,
  type Fetch,
  ProtectionApiError,
  ProtectionAuthError,
  type Tokens,
} from '../src/index';

const TOKEN_PATH = '/v1/oauth/token';
const REDIRECT = 'https://app.example.com/callback';

interface Seen {
  path: string;
  method: string;
  authorization: string | null;
  body: string | undefined;
  status: number;
}

/** A fetch that records what it sends; `events` is shared with onTokens to check the order. */
function recorder(events: string[] = []) {
  const seen: Seen[] = [];
  const fetch: Fetch = async (url, init) => {
    const res = await globalThis.fetch(url, init);
    const path = new URL(url).pathname;
    seen.push({
      path,
      method: init.method ?? 'GET',
      authorization: new Headers(init.headers).get('authorization'),
      body: typeof init.body === 'string' ? init.body : undefined,
      status: res.status,
    });
    events.push(`${path} ${res.status}`);
    return res;
  };
  return {
    fetch,
    seen,
    events,
    tokenRequests: () => seen.filter((s) => s.path === TOKEN_PATH),
    apiRequests: () => seen.filter((s) => s.path !== TOKEN_PATH),
    /** The access token of the last API request. */
    lastAccessToken: () => seen.findLast((s) => s.path !== TOKEN_PATH)?.authorization?.replace(/^Bearer /, ''),
  };
}

/** The real server, its OAuth endpoints driven end to end through the SDK. */
describe('SDK auth against the server', () => {
  let server: TestServer;
  let owner: Owner;
  let dash: string;
  let ccApp: TCreatedApp;
  let acApp: TCreatedApp;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { auth: 10_000 } });
    owner = await createOwner(server.db, 'sdkauth');
    dash = await dashboardTokenFor(server, owner.user.id);
    ccApp = await createApp(server, owner.user.id, { name: 'CC App' });
    acApp = await createApp(server, owner.user.id, { name: 'AC App' });
    await installWithToken(server, ccApp.clientId, owner.store.id, [
      'store:read',
      'order:read',
      'partner-context:update',
    ]);
  });
  afterAll(async () => {
    await server.close();
  });

  const plain = () => createClient({ baseUrl: server.baseUrl });
  const rawStatus = async (accessToken: string) =>
    (await server.request('/v2/settings', { headers: bearer(accessToken) })).status;

  /** Revokes an access token and waits until the server refuses it (D13: within a second). */
  async function revoke(app: TCreatedApp, token: string): Promise<void> {
    const res = await plain().oauth.revoke({
      body: { token, client_id: app.clientId, client_secret: app.clientSecret },
    });
    expect(res.status).toBe(200);
    await expect.poll(() => rawStatus(token), { timeout: 3000, interval: 100 }).toBe(401);
  }

  /** Installs acApp through approve with PKCE, and exchanges the code through the SDK. */
  async function install(): Promise<Tokens> {
    const pkce = await createPkcePair();
    const dashboard = createClient({ baseUrl: server.baseUrl, accessToken: dash });
    const approved = await dashboard.oauth.approve({
      body: {
        clientId: acApp.clientId,
        redirectUri: REDIRECT,
        storeId: owner.store.id,
        state: 'st-123',
        codeChallenge: pkce.challenge,
        codeChallengeMethod: pkce.method,
      },
    });
    expect(approved.status).toBe(200);
    if (approved.status !== 200) throw new Error('approve failed');
    expect(new URL(approved.body.data.redirectUri).searchParams.get('state')).toBe('st-123');
    return exchangeCode({
      baseUrl: server.baseUrl,
      clientId: acApp.clientId,
      clientSecret: acApp.clientSecret,
      code: approved.body.data.code,
      redirectUri: REDIRECT,
      codeVerifier: pkce.verifier,
    });
  }

  describe('clientCredentials', () => {
    const cc = (t: ReturnType<typeof recorder>, scopes?: string[], secret = ccApp.clientSecret): Client =>
      createClient({
        baseUrl: server.baseUrl,
        fetch: t.fetch,
        auth: clientCredentials({ clientId: ccApp.clientId, clientSecret: secret, storeId: owner.store.id, scopes }),
      });

    it('fetches a token lazily, with HTTP Basic, and reuses it', async () => {
      const t = recorder();
      const client = cc(t);
      expect(t.seen).toEqual([]);
      expect((await client.settings.get()).status).toBe(200);
      expect((await client.settings.get()).status).toBe(200);
      expect(t.tokenRequests()).toHaveLength(1);
      const [tokenRequest] = t.tokenRequests();
      // RFC 6749 §2.3.1: the credentials travel as Basic, not in the body.
      const basic = Buffer.from(tokenRequest!.authorization!.replace(/^Basic /, ''), 'base64').toString();
      expect(basic).toBe(`${ccApp.clientId}:${ccApp.clientSecret}`);
      expect(JSON.parse(tokenRequest!.body!)).toEqual({ grant_type: 'client_credentials', store_id: owner.store.id });
      const [a, b] = t.apiRequests();
      expect(a!.authorization).toMatch(/^Bearer svc_at_/);
      expect(b!.authorization).toBe(a!.authorization);
    });

    it('does not send a token to public routes', async () => {
      const t = recorder();
      await createStore(server.db, { name: 'Public', domain: 'sdkauth-public.example.com' });
      const res = await cc(t).public.getInsurance({ query: { store_url: 'sdkauth-public.example.com' } });
      expect(res.status).toBe(200);
      expect(t.tokenRequests()).toHaveLength(0);
      expect(t.apiRequests()[0]!.authorization).toBeNull();
    });

    it('makes one token request for concurrent calls', async () => {
      const t = recorder();
      const client = cc(t);
      const answers = await Promise.all(Array.from({ length: 10 }, () => client.settings.get()));
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(t.tokenRequests()).toHaveLength(1);
      expect(new Set(t.apiRequests().map((s) => s.authorization)).size).toBe(1);
    });

    it('after a 401 fetches a new token and retries once', async () => {
      const t = recorder();
      const client = cc(t);
      expect((await client.settings.get()).status).toBe(200);
      const first = t.lastAccessToken()!;
      await revoke(ccApp, first);

      expect((await client.settings.get()).status).toBe(200);
      expect(t.tokenRequests()).toHaveLength(2);
      expect(t.apiRequests().map((s) => s.status)).toEqual([200, 401, 200]);
      expect(t.lastAccessToken()).not.toBe(first);
    });

    it('re-sends the body of a retried request', async () => {
      const t = recorder();
      const client = cc(t);
      expect((await client.settings.get()).status).toBe(200);
      await revoke(ccApp, t.lastAccessToken()!);

      // Whatever the route answers (it may not be written yet: 501), it is past authentication.
      const status = await client.settings.createContext({ body: { name: 'Retried' } }).then(
        (res) => res.status,
        (e: unknown) => (e instanceof ProtectionApiError ? e.status : Promise.reject(e)),
      );
      expect(status).not.toBe(401);
      const posts = t.apiRequests().filter((s) => s.method === 'POST');
      expect(posts.map((s) => s.status)[0]).toBe(401);
      expect(posts).toHaveLength(2);
      expect(posts[1]!.body).toBe(JSON.stringify({ name: 'Retried' }));
      expect(posts[1]!.body).toBe(posts[0]!.body);
      expect(t.tokenRequests()).toHaveLength(2);
    });

    it('narrows the token to the scopes asked for', async () => {
      const narrow = recorder();
      const res = await cc(narrow, ['order:read']).settings.get();
      expect(res.status).toBe(403); // store:read was filtered out; a 403 is not retried
      expect(narrow.tokenRequests()).toHaveLength(1);
      expect(narrow.apiRequests()).toHaveLength(1);
      expect(JSON.parse(narrow.tokenRequests()[0]!.body!).scopes).toEqual(['order:read']);

      // Earlier-style names are aliases (D16).
      expect((await cc(recorder(), ['read_store']).settings.get()).status).toBe(200);
    });

    it('surfaces a refused grant as ProtectionAuthError, once per call', async () => {
      const t = recorder();
      const wider = cc(t, ['claim:read']);
      const error = await wider.settings.get().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProtectionAuthError);
      expect(error).toMatchObject({ code: 'invalid_scope', status: 400 });
      expect(t.apiRequests()).toHaveLength(0);

      const wrong = recorder();
      const e2 = await cc(wrong, undefined, `${ccApp.clientSecret}x`)
        .settings.get()
        .catch((e: unknown) => e);
      expect(e2).toBeInstanceOf(ProtectionAuthError);
      expect(e2).toMatchObject({ code: 'invalid_client', status: 401 });
      expect(wrong.tokenRequests()).toHaveLength(1);

      const elsewhere = await createStore(server.db, { name: 'Elsewhere', domain: 'sdkauth-elsewhere.example.com' });
      const e3 = await createClient({
        baseUrl: server.baseUrl,
        auth: clientCredentials({ clientId: ccApp.clientId, clientSecret: ccApp.clientSecret, storeId: elsewhere.id }),
      })
        .settings.get()
        .catch((e: unknown) => e);
      expect(e3).toMatchObject({ name: 'ProtectionAuthError', code: 'invalid_grant' });
    });
  });

  describe('authorizationCode', () => {
    it('exchanges a PKCE code for tokens; the code works once', async () => {
      const pkce = await createPkcePair();
      const dashboard = createClient({ baseUrl: server.baseUrl, accessToken: dash });
      const approved = await dashboard.oauth.approve({
        body: {
          clientId: acApp.clientId,
          redirectUri: REDIRECT,
          storeId: owner.store.id,
          codeChallenge: pkce.challenge,
          codeChallengeMethod: 'S256',
        },
      });
      if (approved.status !== 200) throw new Error(`approve answered ${approved.status}`);
      const exchange = (codeVerifier?: string) =>
        exchangeCode({
          baseUrl: server.baseUrl,
          clientId: acApp.clientId,
          clientSecret: acApp.clientSecret,
          code: approved.body.data.code,
          redirectUri: REDIRECT,
          codeVerifier,
        });
      const before = Date.now();
      const tokens = await exchange(pkce.verifier);
      expect(tokens.accessToken).toMatch(/^svc_at_/);
      expect(tokens.refreshToken).toMatch(/^svc_rt_/);
      expect(tokens.expiresAt).toBeGreaterThanOrEqual(before + 3600_000);
      expect(tokens.expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);
      expect(tokens.scopes).toContain('store:read');
      expect(await rawStatus(tokens.accessToken)).toBe(200);

      const again = await exchange(pkce.verifier).catch((e: unknown) => e);
      expect(again).toBeInstanceOf(ProtectionAuthError);
      expect(again).toMatchObject({ code: 'invalid_grant', status: 400 });
    });

    it('uses the stored access token while it is fresh', async () => {
      const tokens = await install();
      const t = recorder();
      const onTokens = vi.fn();
      const client = createClient({
        baseUrl: server.baseUrl,
        fetch: t.fetch,
        auth: authorizationCode({ clientId: acApp.clientId, clientSecret: acApp.clientSecret, tokens, onTokens }),
      });
      expect((await client.settings.get()).status).toBe(200);
      expect(t.tokenRequests()).toHaveLength(0);
      expect(t.lastAccessToken()).toBe(tokens.accessToken);
      expect(onTokens).not.toHaveBeenCalled();
    });

    it('refreshes a token close to expiry first, once for concurrent calls', async () => {
      const tokens = await install();
      const t = recorder();
      const saved: Tokens[] = [];
      const client = createClient({
        baseUrl: server.baseUrl,
        fetch: t.fetch,
        auth: authorizationCode({
          clientId: acApp.clientId,
          clientSecret: acApp.clientSecret,
          // Still valid for 30 s, inside the 60 s margin.
          tokens: { ...tokens, expiresAt: Date.now() + 30_000 },
          onTokens: (next) => {
            saved.push(next);
          },
        }),
      });
      const answers = await Promise.all(Array.from({ length: 5 }, () => client.settings.get()));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      // A second refresh with the same refresh token would have revoked the family (D12).
      expect(t.tokenRequests()).toHaveLength(1);
      expect(saved).toHaveLength(1);
      expect(saved[0]!.refreshToken).not.toBe(tokens.refreshToken);
      expect(new Set(t.apiRequests().map((s) => s.authorization))).toEqual(
        new Set([`Bearer ${saved[0]!.accessToken}`]),
      );
    });

    it('rotates: each refresh persists the newest refresh token before the retry and uses it next', async () => {
      const initial = await install();
      const events: string[] = [];
      const t = recorder(events);
      const saved: Tokens[] = [];
      const client = createClient({
        baseUrl: server.baseUrl,
        fetch: t.fetch,
        auth: authorizationCode({
          clientId: acApp.clientId,
          clientSecret: acApp.clientSecret,
          tokens: { refreshToken: initial.refreshToken }, // no access token: fetched on first use
          onTokens: async (next) => {
            await new Promise((r) => setTimeout(r, 20)); // a slow store still comes first
            saved.push(next);
            events.push('onTokens');
          },
        }),
      });

      expect((await client.settings.get()).status).toBe(200);
      expect(events).toEqual([`${TOKEN_PATH} 200`, 'onTokens', '/v2/settings 200']);
      await revoke(acApp, saved[0]!.accessToken);

      events.length = 0;
      expect((await client.settings.get()).status).toBe(200);
      expect(events).toEqual(['/v2/settings 401', `${TOKEN_PATH} 200`, 'onTokens', '/v2/settings 200']);

      // Every refresh presented the refresh token given last, and got a new one.
      const presented = t.tokenRequests().map((s) => JSON.parse(s.body!).refresh_token);
      expect(presented).toEqual([initial.refreshToken, saved[0]!.refreshToken]);
      expect(new Set([initial.refreshToken, ...saved.map((s) => s.refreshToken)]).size).toBe(3);
      expect(t.lastAccessToken()).toBe(saved[1]!.accessToken);

      // The old refresh token is retired: presenting it answers invalid_grant (and, D12, kills the family).
      const old = await plain().oauth.token({
        body: {
          grant_type: 'refresh_token',
          refresh_token: initial.refreshToken,
          client_id: acApp.clientId,
          client_secret: acApp.clientSecret,
        },
      });
      expect(old.status).toBe(400);
      expect(old.body).toMatchObject({ error: 'invalid_grant' });
    });

    it('surfaces a failed refresh as ProtectionAuthError invalid_grant, without looping', async () => {
      const initial = await install();
      const t = recorder();
      const onTokens = vi.fn();
      const client = createClient({
        baseUrl: server.baseUrl,
        fetch: t.fetch,
        auth: authorizationCode({
          clientId: acApp.clientId,
          clientSecret: acApp.clientSecret,
          tokens: initial,
          onTokens,
        }),
      });
      expect((await client.settings.get()).status).toBe(200);
      // The refresh token is revoked, and with it its access tokens (D13).
      await revoke(acApp, initial.refreshToken);
      await expect.poll(() => rawStatus(initial.accessToken), { timeout: 3000, interval: 100 }).toBe(401);

      const error = await client.settings.get().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProtectionAuthError);
      expect(error).toBeInstanceOf(ProtectionApiError);
      expect(error).toMatchObject({ code: 'invalid_grant', status: 400 });
      expect(t.apiRequests().map((s) => s.status)).toEqual([200, 401]);
      expect(t.tokenRequests()).toHaveLength(1);
      expect(onTokens).not.toHaveBeenCalled();

      // The grant is over: later calls fail the same way without asking the server again.
      await expect(client.settings.get()).rejects.toBe(error);
      expect(t.seen).toHaveLength(3);
    });

    it('keeps the new tokens when onTokens throws, and rejects that call', async () => {
      const initial = await install();
      const t = recorder();
      const saved: Tokens[] = [];
      const client = createClient({
        baseUrl: server.baseUrl,
        fetch: t.fetch,
        auth: authorizationCode({
          clientId: acApp.clientId,
          clientSecret: acApp.clientSecret,
          tokens: { refreshToken: initial.refreshToken },
          onTokens: (next) => {
            saved.push(next);
            throw new Error('disk full');
          },
        }),
      });
      await expect(client.settings.get()).rejects.toThrow('disk full');
      expect((await client.settings.get()).status).toBe(200);
      expect(t.tokenRequests()).toHaveLength(1);
      expect(t.lastAccessToken()).toBe(saved[0]!.accessToken);
    });
  });
});

/** Behaviour that needs a transport the server cannot be made to give: a stub fetch. */
describe('SDK auth with a stub transport', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const unauthorized = () =>
    json(401, { statusCode: 401, message: 'invalid, expired or revoked access token', error: 'Unauthorized' });

  /** A token endpoint issuing `svc_at_1`, `svc_at_2`, … and an API answering `api`. */
  function stub(api: (authorization: string | null, init: RequestInit) => Response | Promise<Response>) {
    let issued = 0;
    const calls: { path: string; init: RequestInit }[] = [];
    const fetch: Fetch = async (url, init) => {
      const path = new URL(url).pathname;
      calls.push({ path, init });
      if (path === TOKEN_PATH) {
        issued += 1;
        return json(200, {
          access_token: `svc_at_${issued}`,
          token_type: 'Bearer',
          expires_in: 3600,
          scope: 'store:read',
        });
      }
      return api(new Headers(init.headers).get('authorization'), init);
    };
    const client = createClient({
      baseUrl: 'http://stub.invalid',
      fetch,
      auth: clientCredentials({ clientId: 'svc_app_a b', clientSecret: 'svc_secret_x:y+z', storeId: 'st_1' }),
    });
    return { client, fetch, calls, tokens: () => calls.filter((c) => c.path === TOKEN_PATH).length };
  }
  const ok = () => json(200, { data: {} });

  it('form-urlencodes the client id and secret inside HTTP Basic (RFC 6749 §2.3.1)', async () => {
    const s = stub(ok);
    await s.client.settings.get();
    const header = new Headers(s.calls[0]!.init.headers).get('authorization')!;
    expect(Buffer.from(header.replace(/^Basic /, ''), 'base64').toString()).toBe('svc_app_a+b:svc_secret_x%3Ay%2Bz');
  });

  it('renews a cached token 60 s before it expires', async () => {
    const s = stub(ok);
    const start = Date.now();
    await s.client.settings.get();
    vi.spyOn(Date, 'now').mockReturnValue(start + 3600_000 - 61_000);
    await s.client.settings.get();
    expect(s.tokens()).toBe(1);
    vi.spyOn(Date, 'now').mockReturnValue(start + 3600_000 - 59_000);
    await s.client.settings.get();
    expect(s.tokens()).toBe(2);
  });

  it('retries once: a second 401 is the answer', async () => {
    const s = stub(unauthorized);
    const res = await s.client.settings.get();
    expect(res.status).toBe(401);
    expect(s.calls.map((c) => c.path)).toEqual([TOKEN_PATH, '/v2/settings', TOKEN_PATH, '/v2/settings']);
  });

  it('shares one refresh among concurrent 401s', async () => {
    const s = stub((authorization) => (authorization === 'Bearer svc_at_1' ? unauthorized() : ok()));
    const answers = await Promise.all(Array.from({ length: 5 }, () => s.client.settings.get()));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(s.tokens()).toBe(2);
  });

  it('does not drop a newer token for a late 401 of an older one', async () => {
    // Two calls with svc_at_1: the first 401 renews; the second 401 arrives after that and reuses svc_at_2.
    let late = true;
    const s = stub(async (authorization) => {
      if (authorization !== 'Bearer svc_at_1') return ok();
      if (late) {
        late = false;
        await new Promise((r) => setTimeout(r, 100));
      }
      return unauthorized();
    });
    const answers = await Promise.all([s.client.settings.get(), s.client.settings.get()]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    expect(s.tokens()).toBe(2);
  });

  it('does not retry a request whose body is a stream', async () => {
    const s = stub(unauthorized);
    // The client sends strings; a caller using the middleware directly could send a stream.
    const provider = clientCredentials({ clientId: 'svc_app_a', clientSecret: 's', storeId: 'st_1' });
    const send = provider.attach(createClient({ baseUrl: 'http://stub.invalid', fetch: s.fetch }))(s.fetch);
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{}'));
        controller.close();
      },
    });
    const res = await send('http://stub.invalid/v2/settings/context', { method: 'POST', body });
    expect(res.status).toBe(401);
    expect(s.tokens()).toBe(1);
  });

  it('refuses accessToken together with auth', () => {
    expect(() =>
      createClient({
        baseUrl: 'http://stub.invalid',
        accessToken: 'svc_at_x',
        auth: clientCredentials({ clientId: 'a', clientSecret: 'b', storeId: 'c' }),
      }),
    ).toThrow(TypeError);
  });

  it('creates an S256 PKCE pair (RFC 7636)', async () => {
    const a = await createPkcePair();
    const b = await createPkcePair();
    expect(a.method).toBe('S256');
    expect(a.verifier).toMatch(/^[A-Za-z0-9\-._~]{43,128}$/);
    expect(a.verifier).not.toBe(b.verifier);
    expect(a.challenge).toBe(createHash('sha256').update(a.verifier).digest('base64url'));
  });

  it('builds the authorization URL of an install with PKCE and a state (D40)', async () => {
    const a = await authorizeUrl({ baseUrl: 'https://api.example.com/', clientId: 'svc_app_x', redirectUri: REDIRECT });
    const b = await authorizeUrl({
      baseUrl: 'https://api.example.com',
      clientId: 'svc_app_x',
      redirectUri: REDIRECT,
      scopes: ['order:read', 'claim:read'],
      store: 'st_1',
      state: 'mine',
    });
    const url = new URL(a.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://api.example.com/v1/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'svc_app_x',
      redirect_uri: REDIRECT,
      state: a.state,
      code_challenge: createHash('sha256').update(a.codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    expect(a.state).toMatch(/^[\w-]{43}$/);
    expect(b.state).toBe('mine');
    expect(new URL(b.url).searchParams.get('scope')).toBe('order:read claim:read');
    expect(new URL(b.url).searchParams.get('store')).toBe('st_1');
    expect(b.codeVerifier).not.toBe(a.codeVerifier);
  });
});
