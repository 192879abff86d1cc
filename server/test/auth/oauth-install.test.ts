import { createHash, randomBytes } from 'node:crypto';
import { SCOPES, type TCreatedApp } from '@protection-service/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvePricing } from '../../src/domain/identity/apps';
import { createStore } from '../../src/domain/identity/stores';
import { bearer, createApp, createOwner, dashboardTokenFor, type Owner } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/** A response body, typed loosely for assertions. */
const json = (res: Response): Promise<any> => res.json();
/**
 * The install dance through HTTP (D10, D11, D17): consent preview, approval, the code on the
 * redirect URI, the token exchange, and the token used on a token route.
 */
describe('OAuth install (authorize, approve, exchange)', () => {
  let server: TestServer;
  let owner: Owner;
  let dash: string;
  let app: TCreatedApp;
  const REDIRECT = 'https://app.example.com/callback';

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { auth: 10_000 } });
    owner = await createOwner(server.db, 'install');
    dash = await dashboardTokenFor(server, owner.user.id);
    app = await createApp(server, owner.user.id, {
      requestedScopes: ['order:read', 'store:read', 'quote:read', 'pricing:shipping-insurance:read'],
    });
  });
  afterAll(async () => {
    await server.close();
  });

  const post = (path: string, json: unknown, token = dash) =>
    server.request(path, { method: 'POST', headers: bearer(token), json });
  const install = (extra: Record<string, unknown> = {}) => ({
    clientId: app.clientId,
    redirectUri: REDIRECT,
    storeId: owner.store.id,
    ...extra,
  });
  const pkce = () => {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  };
  const codeCount = async () =>
    Number(
      (
        await server.db
          .selectFrom('authorizationCodes')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('serves the RFC 8414 discovery document (D17)', async () => {
    const res = await server.request('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    const doc = await json(res);
    expect(doc).toEqual({
      issuer: server.baseUrl,
      authorization_endpoint: `${server.baseUrl}/v1/oauth/authorize`,
      token_endpoint: `${server.baseUrl}/v1/oauth/token`,
      revocation_endpoint: `${server.baseUrl}/v1/oauth/revoke`,
      scopes_supported: [...SCOPES],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      code_challenge_methods_supported: ['S256'],
      service_documentation: `${server.baseUrl}/docs`,
    });
  });

  it('runs the whole dance: preview, approve (code + state on the redirect), exchange, token route', async () => {
    const preview = await post(
      '/v1/oauth/authorize',
      install({ state: 'xyz 1', scopes: ['store:read', 'read_orders'] }),
    );
    expect(preview.status).toBe(200);
    expect((await json(preview)).data).toEqual({
      app: { clientId: app.clientId, name: 'Test App', distribution: 'public' },
      store: { id: owner.store.id, name: owner.store.name, domain: owner.store.domain },
      redirectUri: REDIRECT,
      requestedScopes: ['store:read', 'order:read'],
      grantableScopes: ['store:read', 'order:read'],
      withheldScopes: [],
      installedScopes: null,
    });
    expect(await codeCount()).toBe(0); // the preview writes nothing

    const { verifier, challenge } = pkce();
    const approved = await post(
      '/v1/oauth/authorize/approve',
      install({
        state: 'xyz 1',
        scopes: ['store:read', 'read_orders'],
        codeChallenge: challenge,
        codeChallengeMethod: 'S256',
      }),
    );
    expect(approved.status).toBe(200);
    const { data } = (await json(approved)) as { data: { code: string; redirectUri: string } };
    const redirect = new URL(data.redirectUri);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT);
    expect(redirect.searchParams.get('code')).toBe(data.code);
    expect(redirect.searchParams.get('state')).toBe('xyz 1');
    // D5: the code is stored only as its digest.
    const stored = await server.db.selectFrom('authorizationCodes').selectAll().execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.codeHash).toBe(createHash('sha256').update(data.code).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(data.code);

    const installation = await server.db
      .selectFrom('installations')
      .selectAll()
      .where('storeId', '=', owner.store.id)
      .where('clientId', '=', app.clientId)
      .executeTakeFirstOrThrow();
    expect(installation.scopes).toEqual(['store:read', 'order:read']);
    expect(installation.installedByUserId).toBe(owner.user.id);

    const tokenRes = await server.request('/v1/oauth/token', {
      method: 'POST',
      json: {
        grant_type: 'authorization_code',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        code: redirect.searchParams.get('code'),
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      },
    });
    expect(tokenRes.status).toBe(200);
    expect(tokenRes.headers.get('cache-control')).toBe('no-store');
    const tokens = await json(tokenRes);
    expect(tokens).toEqual({
      access_token: expect.stringMatching(/^svc_at_/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^svc_rt_/),
      scope: 'store:read order:read',
    });

    // The token is accepted on a token route and reads its own store.
    const settings = await server.request('/v2/settings', { headers: bearer(tokens.access_token) });
    expect(settings.status).toBe(200);
    expect((await json(settings)).data).toBeTypeOf('object');

    // The preview now shows the installation.
    const again = await post('/v1/oauth/authorize', install());
    expect((await json(again)).data.installedScopes).toEqual(['store:read', 'order:read']);
  });

  it('a token lacking the route scope answers 403 naming it', async () => {
    const approved = await post('/v1/oauth/authorize/approve', install({ scopes: ['quote:read'] }));
    expect(approved.status).toBe(200);
    const { data } = await json(approved);
    const tokenRes = await server.request('/v1/oauth/token', {
      method: 'POST',
      json: {
        grant_type: 'authorization_code',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        code: data.code,
        redirect_uri: REDIRECT,
      },
    });
    expect(tokenRes.status).toBe(200);
    const { access_token, scope } = await json(tokenRes);
    expect(scope).toBe('quote:read');
    const res = await server.request('/v2/settings', { headers: bearer(access_token) });
    expect(res.status).toBe(403);
    expect((await json(res)).message).toContain('store:read');
  });

  it('withholds pricing scopes of an unapproved public app, grants them once approved (D9)', async () => {
    const preview = await post(
      '/v1/oauth/authorize',
      install({ scopes: ['store:read', 'read_shipping_insurance_pricing'] }),
    );
    expect((await json(preview)).data).toMatchObject({
      requestedScopes: ['store:read', 'pricing:shipping-insurance:read'],
      grantableScopes: ['store:read'],
      withheldScopes: ['pricing:shipping-insurance:read'],
    });
    const refused = await post('/v1/oauth/authorize/approve', install({ scopes: ['pricing:shipping-insurance:read'] }));
    expect(refused.status).toBe(400);
    await approvePricing(server.db, app.clientId);
    const granted = await post('/v1/oauth/authorize/approve', install({ scopes: ['pricing:shipping-insurance:read'] }));
    expect(granted.status).toBe(200);
    const inst = await server.db
      .selectFrom('installations')
      .select('scopes')
      .where('clientId', '=', app.clientId)
      .where('uninstalledAt', 'is', null)
      .executeTakeFirstOrThrow();
    expect(inst.scopes).toEqual(['pricing:shipping-insurance:read']);
  });

  it('keeps the query of a registered redirect URI and adds code and state', async () => {
    const withQuery = await createApp(server, owner.user.id, {
      redirectUris: ['https://app.example.com/cb?tenant=7&lang=en'],
    });
    const res = await post('/v1/oauth/authorize/approve', {
      clientId: withQuery.clientId,
      redirectUri: 'https://app.example.com/cb?tenant=7&lang=en',
      storeId: owner.store.id,
      state: 'a&b=c',
    });
    expect(res.status).toBe(200);
    const url = new URL((await json(res)).data.redirectUri);
    expect(url.searchParams.get('tenant')).toBe('7');
    expect(url.searchParams.get('lang')).toBe('en');
    expect(url.searchParams.get('state')).toBe('a&b=c');
    expect(url.searchParams.get('code')).toMatch(/^svc_ac_/);
  });

  it('refuses a redirect URI that is not registered exactly: 400 and no code (D10)', async () => {
    const before = await codeCount();
    for (const redirectUri of [
      'https://app.example.com/callback/',
      'https://app.example.com/callback?x=1',
      'https://APP.example.com/callback',
      'https://evil.example.com/callback',
    ]) {
      for (const path of ['/v1/oauth/authorize', '/v1/oauth/authorize/approve']) {
        const res = await post(path, install({ redirectUri }));
        expect(res.status, `${path} ${redirectUri}`).toBe(400);
        expect(await json(res)).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      }
    }
    expect(await codeCount()).toBe(before);
  });

  it('answers 404 for an unknown app, an unknown store and a store the user does not belong to', async () => {
    const foreign = await createStore(server.db, { name: 'Other', domain: 'other-install.example.com' });
    for (const body of [
      install({ clientId: 'svc_app_nope' }),
      install({ storeId: 'st_nope' }),
      install({ storeId: foreign.id }),
    ]) {
      for (const path of ['/v1/oauth/authorize', '/v1/oauth/authorize/approve']) {
        const res = await post(path, body);
        expect(res.status, path).toBe(404);
        expect(await json(res)).toMatchObject({ statusCode: 404, error: 'Not Found' });
      }
    }
    const installs = await server.db
      .selectFrom('installations')
      .select('id')
      .where('storeId', '=', foreign.id)
      .execute();
    expect(installs).toEqual([]);
  });

  it('refuses unknown scopes, write_settings, plain PKCE and a challenge without its method (400)', async () => {
    const { challenge } = pkce();
    for (const extra of [
      { scopes: ['order:write'] },
      { scopes: ['write_settings'] },
      { codeChallenge: challenge, codeChallengeMethod: 'plain' },
      { codeChallenge: challenge },
      { codeChallengeMethod: 'S256' },
    ]) {
      const res = await post('/v1/oauth/authorize/approve', install(extra));
      expect(res.status, JSON.stringify(extra)).toBe(400);
    }
  });

  it('refuses access tokens on the install endpoints (spec: dashboard JWT only)', async () => {
    const approved = await post('/v1/oauth/authorize/approve', install({ scopes: ['store:read'] }));
    const { data } = await json(approved);
    const tokenRes = await server.request('/v1/oauth/token', {
      method: 'POST',
      json: {
        grant_type: 'authorization_code',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        code: data.code,
        redirect_uri: REDIRECT,
      },
    });
    const { access_token } = await json(tokenRes);
    expect((await post('/v1/oauth/authorize', install(), access_token)).status).toBe(401);
    expect((await post('/v1/oauth/authorize/approve', install(), access_token)).status).toBe(401);
  });
});
