import { describe, expect, it } from 'vitest';
import { isRouteMeta } from '../src/meta';
import { appRoutes } from '../src/routes/apps';
import { authRoutes } from '../src/routes/auth';
import { oauthRoutes } from '../src/routes/oauth';
import { storeRoutes } from '../src/routes/stores';
import {
  ZAppEvent,
  ZAppEventsQuery,
  ZCreateAppRequest,
  ZCreatedApp,
  ZLoginRequest,
  ZLoginResponse,
  ZPasswordChange,
  ZRedirectUri,
  ZStaffToken,
  ZWebhookTestRequest,
} from '../src/schemas/identity';
import {
  requestedScopes,
  ZAuthorizationServerMetadata,
  ZAuthorizeRequest,
  ZRevokeRequest,
  ZRevokeResponse,
  ZScopeString,
  ZSessionVerifyResponse,
  ZTokenRequest,
  ZTokenResponse,
} from '../src/schemas/oauth';
import { WEBHOOK_BODY_SCHEMAS, WEBHOOK_TOPICS, ZProtectionRemovedBody, ZWebhookEvent } from '../src/schemas/webhooks';
import { isRole, ROLE_SCOPES, ROLES, SCOPES } from '../src/scopes';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'; // RFC 7636 appendix B, 43 chars
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const TS = '2026-01-31T12:00:00.000Z';

const codeGrant = {
  grant_type: 'authorization_code',
  client_id: 'svc_app_abc',
  client_secret: 'svc_secret_xyz',
  code: 'code123',
  redirect_uri: 'https://app.example.com/cb',
};

describe('token request (D11)', () => {
  it('accepts each grant type and discriminates on grant_type', () => {
    const a = ZTokenRequest.parse({ ...codeGrant, code_verifier: VERIFIER });
    expect(a.grant_type).toBe('authorization_code');
    const r = ZTokenRequest.parse({
      grant_type: 'refresh_token',
      refresh_token: 'svc_rt_1',
      scope: 'order:read read_claims',
    });
    expect(r.grant_type).toBe('refresh_token');
    const cc = ZTokenRequest.parse({ grant_type: 'client_credentials', store_id: 'st_1', scopes: ['order:read'] });
    expect(cc.grant_type).toBe('client_credentials');
  });

  it('refuses an unknown grant type and fields of another grant', () => {
    expect(ZTokenRequest.safeParse({ ...codeGrant, grant_type: 'password' }).success).toBe(false);
    expect(ZTokenRequest.safeParse({ ...codeGrant, grant_type: 'implicit' }).success).toBe(false);
    // store_id belongs to client_credentials only (strict, D3)
    expect(ZTokenRequest.safeParse({ ...codeGrant, store_id: 'st_1' }).success).toBe(false);
    // the code exchange takes no scopes
    expect(ZTokenRequest.safeParse({ ...codeGrant, scopes: ['order:read'] }).success).toBe(false);
    expect(ZTokenRequest.safeParse({ grant_type: 'client_credentials' }).success).toBe(false);
    expect(ZTokenRequest.safeParse({ grant_type: 'refresh_token' }).success).toBe(false);
    expect(ZTokenRequest.safeParse({ grant_type: 'authorization_code', code: 'x' }).success).toBe(false);
  });

  it('lets client credentials come by HTTP Basic (body fields optional)', () => {
    const { client_id: _i, client_secret: _s, ...rest } = codeGrant;
    expect(ZTokenRequest.safeParse(rest).success).toBe(true);
  });

  it('checks the PKCE verifier: 43-128 chars of [A-Za-z0-9-._~]', () => {
    const ok = (v: string) => ZTokenRequest.safeParse({ ...codeGrant, code_verifier: v }).success;
    expect(ok(VERIFIER)).toBe(true);
    expect(ok('a'.repeat(43))).toBe(true);
    expect(ok('a'.repeat(128))).toBe(true);
    expect(ok('-._~'.repeat(11))).toBe(true);
    expect(ok('a'.repeat(42))).toBe(false);
    expect(ok('a'.repeat(129))).toBe(false);
    expect(ok(`${'a'.repeat(42)}+`)).toBe(false);
    expect(ok(`${'a'.repeat(42)}/`)).toBe(false);
    expect(ok(`${'a'.repeat(42)}=`)).toBe(false);
    expect(ok(`${'a'.repeat(42)} `)).toBe(false);
  });

  it('accepts scopes as an array or as a space-separated string, not both', () => {
    const base = { grant_type: 'client_credentials', store_id: 'st_1' };
    expect(ZTokenRequest.safeParse({ ...base, scopes: ['order:read', 'read_orders'] }).success).toBe(true);
    expect(ZTokenRequest.safeParse({ ...base, scope: 'order:read read_orders' }).success).toBe(true);
    expect(ZTokenRequest.safeParse({ ...base, scopes: ['order:read'], scope: 'order:read' }).success).toBe(false);
    expect(requestedScopes({ scope: 'order:read claim:read' })).toEqual(['order:read', 'claim:read']);
    expect(requestedScopes({ scopes: ['a'] })).toEqual(['a']);
    expect(requestedScopes({})).toBeUndefined();
  });

  it('bounds scope lists and scope strings', () => {
    const base = { grant_type: 'client_credentials', store_id: 'st_1' };
    expect(ZTokenRequest.safeParse({ ...base, scopes: Array(50).fill('order:read') }).success).toBe(true);
    expect(ZTokenRequest.safeParse({ ...base, scopes: Array(51).fill('order:read') }).success).toBe(false);
    expect(ZTokenRequest.safeParse({ ...base, scopes: ['has space'] }).success).toBe(false);
    expect(ZTokenRequest.safeParse({ ...base, scopes: [''] }).success).toBe(false);
    expect(ZTokenRequest.safeParse({ ...base, scopes: ['x'.repeat(129)] }).success).toBe(false);
    expect(ZScopeString.safeParse(Array(51).fill('a').join(' ')).success).toBe(false);
    expect(ZScopeString.safeParse('order:read  claim:read').success).toBe(false);
    expect(ZScopeString.safeParse(' order:read').success).toBe(false);
    expect(ZScopeString.safeParse('').success).toBe(false);
  });
});

describe('token response (spec, D11)', () => {
  const resp = {
    access_token: 'svc_at_1',
    token_type: 'Bearer',
    expires_in: 3600,
    refresh_token: 'svc_rt_1',
    scope: 'order:read',
  };
  it('has Bearer type, prefixed tokens and an optional refresh token', () => {
    expect(ZTokenResponse.safeParse(resp).success).toBe(true);
    const { refresh_token: _r, ...cc } = resp;
    expect(ZTokenResponse.safeParse(cc).success).toBe(true);
    expect(ZTokenResponse.safeParse({ ...resp, token_type: 'bearer' }).success).toBe(false);
    expect(ZTokenResponse.safeParse({ ...resp, access_token: 'abc' }).success).toBe(false);
    expect(ZTokenResponse.safeParse({ ...resp, refresh_token: 'svc_at_1' }).success).toBe(false);
    expect(ZTokenResponse.safeParse({ ...resp, extra: 1 }).success).toBe(false);
  });
});

describe('revoke (RFC 7009, D13)', () => {
  it('needs a token and accepts only the two hints', () => {
    expect(ZRevokeRequest.safeParse({ token: 'svc_rt_1', token_type_hint: 'refresh_token' }).success).toBe(true);
    expect(ZRevokeRequest.safeParse({ token: 'svc_at_1', client_id: 'svc_app_1', client_secret: 's' }).success).toBe(
      true,
    );
    expect(ZRevokeRequest.safeParse({ client_id: 'svc_app_1' }).success).toBe(false);
    expect(ZRevokeRequest.safeParse({ token: 'x', token_type_hint: 'id_token' }).success).toBe(false);
    expect(ZRevokeRequest.safeParse({ token: 'x', other: 1 }).success).toBe(false);
    expect(ZRevokeResponse.safeParse({}).success).toBe(true);
    expect(ZRevokeResponse.safeParse({ ok: true }).success).toBe(false);
  });
});

describe('session verify (spec, D15)', () => {
  it('answers later-style scopes only', () => {
    const v = {
      userId: 'usr_1',
      email: 'a@example.com',
      firstName: 'A',
      lastName: null,
      storeId: 'st_1',
      installationId: 'in_1',
      applicationId: 'svc_app_1',
      clientId: 'svc_app_1',
      scopes: ['order:read'],
    };
    expect(ZSessionVerifyResponse.safeParse(v).success).toBe(true);
    expect(ZSessionVerifyResponse.safeParse({ ...v, scopes: ['read_orders'] }).success).toBe(false);
  });
});

describe('authorize / approve (D10)', () => {
  const base = { clientId: 'svc_app_1', redirectUri: 'https://app.example.com/cb', storeId: 'st_1' };
  it('accepts a minimal request and an S256 challenge', () => {
    expect(ZAuthorizeRequest.safeParse(base).success).toBe(true);
    expect(
      ZAuthorizeRequest.safeParse({
        ...base,
        state: 'xyz',
        scopes: ['order:read'],
        codeChallenge: CHALLENGE,
        codeChallengeMethod: 'S256',
      }).success,
    ).toBe(true);
  });
  it('refuses plain, a missing method, a method without challenge and bad challenges', () => {
    expect(
      ZAuthorizeRequest.safeParse({ ...base, codeChallenge: CHALLENGE, codeChallengeMethod: 'plain' }).success,
    ).toBe(false);
    expect(ZAuthorizeRequest.safeParse({ ...base, codeChallenge: CHALLENGE }).success).toBe(false);
    expect(ZAuthorizeRequest.safeParse({ ...base, codeChallengeMethod: 'S256' }).success).toBe(false);
    expect(
      ZAuthorizeRequest.safeParse({ ...base, codeChallenge: CHALLENGE.slice(1), codeChallengeMethod: 'S256' }).success,
    ).toBe(false);
    expect(
      ZAuthorizeRequest.safeParse({ ...base, codeChallenge: `${CHALLENGE.slice(1)}=`, codeChallengeMethod: 'S256' })
        .success,
    ).toBe(false);
  });
  it('is strict and needs clientId, redirectUri and storeId', () => {
    expect(ZAuthorizeRequest.safeParse({ ...base, responseType: 'code' }).success).toBe(false);
    for (const k of ['clientId', 'redirectUri', 'storeId'] as const) {
      const { [k]: _omit, ...rest } = base;
      expect(ZAuthorizeRequest.safeParse(rest).success).toBe(false);
    }
  });
});

describe('discovery (RFC 8414, D17)', () => {
  const meta = {
    issuer: 'https://api.example.com',
    authorization_endpoint: 'https://dashboard.example.com/install',
    token_endpoint: 'https://api.example.com/v1/oauth/token',
    revocation_endpoint: 'https://api.example.com/v1/oauth/revoke',
    scopes_supported: ['order:read'],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
  };
  it('advertises only S256 and the three grants', () => {
    expect(ZAuthorizationServerMetadata.safeParse(meta).success).toBe(true);
    expect(
      ZAuthorizationServerMetadata.safeParse({ ...meta, code_challenge_methods_supported: ['plain'] }).success,
    ).toBe(false);
    expect(ZAuthorizationServerMetadata.safeParse({ ...meta, grant_types_supported: ['password'] }).success).toBe(
      false,
    );
  });
});

describe('dashboard login (D8)', () => {
  it('takes email and password strictly and answers tokens plus user', () => {
    expect(ZLoginRequest.safeParse({ email: 'a@example.com', password: 'pw' }).success).toBe(true);
    expect(ZLoginRequest.safeParse({ email: 'a@example.com', password: '' }).success).toBe(false);
    expect(ZLoginRequest.safeParse({ email: 'a@example.com', password: 'pw', remember: true }).success).toBe(false);
    const answer = {
      access_token: 'eyJ.x.y',
      refresh_token: 'svc_drt_1',
      expires_in: 3600,
      token_type: 'Bearer',
      user: {
        id: 'usr_1',
        email: 'a@example.com',
        firstName: null,
        lastName: null,
        stores: [{ id: 'st_1', name: 'S', domain: 's.example', role: 'owner', livemode: true }],
      },
    };
    expect(ZLoginResponse.safeParse(answer).success).toBe(true);
    expect(ZLoginResponse.safeParse({ ...answer, user: undefined }).success).toBe(false);
  });
});

describe('app registration (D9)', () => {
  const app = {
    name: 'My app',
    redirectUris: ['https://app.example.com/cb'],
    webhookUrl: 'https://app.example.com/hooks',
    webhookTopics: ['claim/created', 'protection/added'],
    requestedScopes: ['order:read', 'read_claims'],
    distribution: 'public',
  };
  it('accepts a valid registration', () => {
    expect(ZCreateAppRequest.safeParse(app).success).toBe(true);
  });
  it('checks redirect URIs: https, http only on loopback, no fragment, max 10', () => {
    expect(ZRedirectUri.safeParse('https://app.example.com/cb?x=1').success).toBe(true);
    expect(ZRedirectUri.safeParse('http://localhost:3000/cb').success).toBe(true);
    expect(ZRedirectUri.safeParse('http://127.0.0.1:8080/cb').success).toBe(true);
    expect(ZRedirectUri.safeParse('http://[::1]:8080/cb').success).toBe(true);
    expect(ZRedirectUri.safeParse('http://app.example.com/cb').success).toBe(false);
    expect(ZRedirectUri.safeParse('http://localhost.evil.com/cb').success).toBe(false);
    expect(ZRedirectUri.safeParse('https://app.example.com/cb#frag').success).toBe(false);
    expect(ZRedirectUri.safeParse('https://user:pw@app.example.com/cb').success).toBe(false);
    expect(ZRedirectUri.safeParse('javascript:alert(1)').success).toBe(false);
    expect(ZRedirectUri.safeParse('/relative').success).toBe(false);
    expect(ZCreateAppRequest.safeParse({ ...app, redirectUris: [] }).success).toBe(false);
    const eleven = Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`);
    expect(ZCreateAppRequest.safeParse({ ...app, redirectUris: eleven }).success).toBe(false);
    expect(ZCreateAppRequest.safeParse({ ...app, redirectUris: eleven.slice(0, 10) }).success).toBe(true);
  });
  it('restricts topics to the six spec topics, unique, and needs a webhook URL for them', () => {
    expect(ZCreateAppRequest.safeParse({ ...app, webhookTopics: ['order/created'] }).success).toBe(false);
    expect(ZCreateAppRequest.safeParse({ ...app, webhookTopics: ['claim/created', 'claim/created'] }).success).toBe(
      false,
    );
    const { webhookUrl: _u, ...noUrl } = app;
    expect(ZCreateAppRequest.safeParse(noUrl).success).toBe(false);
    expect(ZCreateAppRequest.safeParse({ ...noUrl, webhookTopics: [] }).success).toBe(true);
    expect(ZCreateAppRequest.safeParse({ ...app, webhookUrl: 'ftp://x.example.com' }).success).toBe(false);
  });
  it('is strict, bounds the name and knows two distributions', () => {
    expect(ZCreateAppRequest.safeParse({ ...app, clientId: 'svc_app_mine' }).success).toBe(false);
    expect(ZCreateAppRequest.safeParse({ ...app, name: '' }).success).toBe(false);
    expect(ZCreateAppRequest.safeParse({ ...app, name: 'x'.repeat(129) }).success).toBe(false);
    expect(ZCreateAppRequest.safeParse({ ...app, distribution: 'internal' }).success).toBe(false);
    expect(ZCreateAppRequest.safeParse({ ...app, requestedScopes: Array(51).fill('order:read') }).success).toBe(false);
  });
  it('shows secrets with their prefixes in the created view', () => {
    const created = {
      clientId: 'svc_app_1',
      name: 'My app',
      redirectUris: ['https://app.example.com/cb'],
      webhookUrl: null,
      testWebhookUrl: null,
      webhookTopics: [],
      requestedScopes: ['order:read'],
      apiVersion: '2026-12-01',
      distribution: 'private',
      pricingApproved: false,
      createdAt: TS,
      updatedAt: TS,
      clientSecret: 'svc_secret_1',
      testClientSecret: 'svc_test_secret_1',
      webhookSecret: 'svc_whsec_1',
    };
    expect(ZCreatedApp.safeParse(created).success).toBe(true);
    expect(ZCreatedApp.safeParse({ ...created, webhookSecret: 'svc_secret_1' }).success).toBe(false);
    expect(ZCreatedApp.safeParse({ ...created, clientId: 'app_1' }).success).toBe(false);
  });
});

describe('webhooks (D32, D34)', () => {
  it('has exactly the six spec topics and the two of tracking (D54), each with a body schema', () => {
    expect([...WEBHOOK_TOPICS].sort()).toEqual(
      [
        'claim/approved',
        'claim/created',
        'claim/denied',
        'message/created',
        'protection/added',
        'protection/removed',
        'tracking/alert',
        'tracking/updated',
      ].sort(),
    );
    expect(Object.keys(WEBHOOK_BODY_SCHEMAS).sort()).toEqual([...WEBHOOK_TOPICS].sort());
  });
  it('types the body by topic', () => {
    const approved = {
      id: 'evt_1',
      topic: 'claim/approved',
      apiVersion: '2026-12-01',
      livemode: true,
      createdAt: TS,
      body: { claimId: 'cl_1', storeId: 'st_1', resolutions: [{ type: 'RESHIP', itemId: 'it_1', quantity: 1 }] },
    };
    expect(ZWebhookEvent.safeParse(approved).success).toBe(true);
    // a claim/approved body under another topic does not pass
    expect(ZWebhookEvent.safeParse({ ...approved, topic: 'claim/denied' }).success).toBe(false);
    expect(ZWebhookEvent.safeParse({ ...approved, topic: 'order/created' }).success).toBe(false);
    expect(ZWebhookEvent.safeParse({ ...approved, body: { ...approved.body, extra: 1 } }).success).toBe(false);
    expect(ZWebhookEvent.safeParse({ ...approved, createdAt: '2026-01-31' }).success).toBe(false);
    // D44: the envelope names the version its body is rendered in, a known one.
    expect(ZWebhookEvent.safeParse({ ...approved, apiVersion: undefined }).success).toBe(false);
    expect(ZWebhookEvent.safeParse({ ...approved, apiVersion: '2024-01-01' }).success).toBe(false);
    const denied = {
      id: 'evt_2',
      topic: 'claim/denied',
      apiVersion: '2025-01-01',
      livemode: false,
      createdAt: TS,
      body: { claimId: 'cl_1', storeId: 'st_1', sourceOrderId: 'o1', reason: 'NOT_COVERED' },
    };
    expect(ZWebhookEvent.safeParse(denied).success).toBe(true);
    expect(ZWebhookEvent.safeParse({ ...denied, body: { ...denied.body, reason: 'BECAUSE' } }).success).toBe(false);
  });
  it('checks protection bodies', () => {
    const removed = {
      orderId: 'ord_1',
      sourceOrderId: '1001',
      storeId: 'st_1',
      policyId: 'pol_1',
      premiumPaid: 2.5,
      currency: 'USD',
      removedAt: TS,
      reason: 'CANCELLED',
    };
    expect(ZProtectionRemovedBody.safeParse(removed).success).toBe(true);
    expect(ZProtectionRemovedBody.safeParse({ ...removed, premiumPaid: -1 }).success).toBe(false);
    expect(ZProtectionRemovedBody.safeParse({ ...removed, currency: 'usd' }).success).toBe(false);
  });
  it('logs events with attempts and filters by status', () => {
    const event = {
      id: 'evt_1',
      topic: 'message/created',
      createdAt: TS,
      storeId: 'st_1',
      body: { claimId: 'cl_1', storeId: 'st_1', messageId: 'm_1', senderType: 'customer', message: 'hi' },
      status: 'failed',
      nextAttemptAt: null,
      attempts: [{ id: 'at_1', attemptedAt: TS, statusCode: null, durationMs: 5000, error: 'timeout', response: null }],
    };
    expect(ZAppEvent.safeParse(event).success).toBe(true);
    expect(ZAppEvent.safeParse({ ...event, status: 'retrying' }).success).toBe(false);
    expect(ZAppEventsQuery.safeParse({ status: 'pending', first: '10' }).success).toBe(true);
    expect(ZAppEventsQuery.safeParse({ status: 'done' }).success).toBe(false);
    expect(ZAppEventsQuery.safeParse({ first: '251' }).success).toBe(false);
    expect(ZWebhookTestRequest.safeParse({ topic: 'claim/created', storeId: 'st_1' }).success).toBe(true);
    expect(ZWebhookTestRequest.safeParse({ topic: 'claim/updated', storeId: 'st_1' }).success).toBe(false);
  });
});

describe('staff (D49)', () => {
  it('knows four roles, each a set of catalog scopes; no role writes partner contexts', () => {
    expect(ROLES).toEqual(['owner', 'admin', 'agent', 'viewer']);
    for (const role of ROLES) {
      expect(isRole(role)).toBe(true);
      expect(ROLE_SCOPES[role].every((s) => (SCOPES as readonly string[]).includes(s))).toBe(true);
      expect(ROLE_SCOPES[role]).not.toContain('partner-context:update');
    }
    expect(isRole('boss')).toBe(false);
    expect(ROLE_SCOPES.viewer).toEqual(['claim:read', 'order:read', 'store:read', 'analytics:read']);
  });

  it('answers a staff token of at most 300 seconds, with its prefix', () => {
    const token = { access_token: 'svc_at_x', token_type: 'Bearer', expires_in: 300, scope: 'claim:read' };
    expect(ZStaffToken.safeParse(token).success).toBe(true);
    expect(ZStaffToken.safeParse({ ...token, expires_in: 301 }).success).toBe(false);
    expect(ZStaffToken.safeParse({ ...token, access_token: 'x' }).success).toBe(false);
  });

  it('takes a new password of at least 12 characters, strictly', () => {
    const change = { currentPassword: 'old', newPassword: '123456789012' };
    expect(ZPasswordChange.safeParse(change).success).toBe(true);
    expect(ZPasswordChange.safeParse({ ...change, newPassword: '12345678901' }).success).toBe(false);
    expect(ZPasswordChange.safeParse({ ...change, currentPassword: '' }).success).toBe(false);
    expect(ZPasswordChange.safeParse({ ...change, extra: 1 }).success).toBe(false);
  });
});

describe('routes', () => {
  const groups = { oauth: oauthRoutes, auth: authRoutes, apps: appRoutes, stores: storeRoutes };
  const all = Object.values(groups).flatMap((g) => Object.values(g));

  it('define the routes of routes.tsv for this area', () => {
    const got = all.map((r) => `${r.method} ${r.path}`).sort();
    expect(got).toEqual(
      [
        'POST /v1/oauth/token',
        'POST /v1/oauth/revoke',
        'POST /v1/oauth/session/verify',
        'POST /v1/auth/login',
        'POST /v1/auth/refresh',
        'POST /v1/oauth/authorize',
        'POST /v1/oauth/authorize/approve',
        'GET /.well-known/oauth-authorization-server',
        'POST /v1/apps',
        'GET /v1/apps/:clientId',
        'PATCH /v1/apps/:clientId',
        'GET /v1/apps/:clientId/api-health',
        'POST /v1/apps/:clientId/rotate-secret',
        'POST /v1/apps/:clientId/test-stores',
        'GET /v1/apps/:clientId/test-stores',
        'DELETE /v1/apps/:clientId/test-stores/:storeId',
        'GET /v1/stores/:storeId/installations',
        'DELETE /v1/stores/:storeId/installations/:clientId',
        'POST /v1/stores/:storeId/apps/:clientId/session-token',
        'GET /v1/apps/:clientId/events',
        'POST /v1/apps/:clientId/events/:eventId/redeliver',
        'POST /v1/apps/:clientId/webhooks/test',
        'POST /v1/apps/:clientId/webhooks/rotate-secret',
        'POST /v1/stores/:storeId/staff-tokens',
        'PATCH /v1/stores/:storeId/settings',
        'GET /v1/stores/:storeId/audit-events',
        'POST /v1/auth/password',
      ].sort(),
    );
  });

  it('carry metadata and strict status codes', () => {
    for (const r of all) {
      expect(isRouteMeta(r.metadata), r.path).toBe(true);
      expect(r.strictStatusCodes, r.path).toBe(true);
    }
  });

  it('use OAuth errors on the client routes and the envelope on data routes', () => {
    const token = oauthRoutes.token.responses;
    expect(
      token[400].safeParse({ statusCode: 400, message: 'x', error: 'invalid_grant', error_description: 'x' }).success,
    ).toBe(true);
    expect(token[400].safeParse({ statusCode: 400, message: 'x', error: 'Bad Request' }).success).toBe(false);
    const login = authRoutes.login.responses[200];
    expect(login.safeParse({ access_token: 'x' }).success).toBe(false);
    expect(appRoutes.create.responses[201]).toBeDefined();
    for (const r of all) {
      const meta = r.metadata as { body: string };
      const success = Object.entries(r.responses).find(([s]) => Number(s) < 300)![1] as {
        shape?: Record<string, unknown>;
      };
      const wrapped = success.shape !== undefined && Object.keys(success.shape).join() === 'data';
      expect(wrapped, `${r.method} ${r.path}`).toBe(meta.body === 'data');
    }
  });
});
