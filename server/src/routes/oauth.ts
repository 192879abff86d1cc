import {
  type Contract,
  contract,
  GRANT_TYPES,
  type OAuthErrorCode,
  requestedScopes,
  SCOPES,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type TTokenRequest,
  type TTokenResponse,
} from '@protection-service/contract';
import type { Request } from 'express';
import { approveInstall, previewInstall } from '../domain/auth/install';
import {
  clientCredentialsToken,
  exchangeAuthorizationCode,
  refreshTokens,
  revokeToken,
  type TokenSet,
} from '../domain/auth/oauth';
import { ACCESS_TOKEN_TTL_S } from '../domain/auth/tokens';
import { type AuthenticatedClient, authenticateClient } from '../domain/identity/apps';
import { dashboardUserOf } from '../http/caller';
import { Refusal, type RefusalIssue, refuse } from '../lib/refusal';
import type { GroupHandlers, RouteContext } from './context';

const BASIC_CHALLENGE = 'Basic realm="protection-service", charset="UTF-8"';

/** RFC 6749 §5.2 failure (D2, D11): `invalid_client` is a 401, the rest 400. */
function oauthFailure(code: OAuthErrorCode, message: string, basic = false): Refusal {
  // RFC 6749 §5.2: a client that tried (or could try) HTTP Basic is told the scheme.
  const challenge = code === 'invalid_client' && basic;
  return refuse.oauth(code, message, challenge ? { headers: { 'www-authenticate': BASIC_CHALLENGE } } : {});
}

/**
 * A parameter sent twice in a form body (RFC 6749 §3.1, §3.2: "MUST NOT be included more than
 * once", D11): the form parser turns it into an array. JSON bodies cannot repeat a key once
 * parsed, and their `scopes` is an array by design.
 */
function repeatedParameter(req: Pick<Request, 'is' | 'body'>): string | undefined {
  if (!req.is('application/x-www-form-urlencoded')) return undefined;
  const body = req.body as Record<string, unknown> | undefined;
  if (typeof body !== 'object' || body === null) return undefined;
  return Object.keys(body).find((key) => Array.isArray(body[key]));
}

/**
 * Validation failures of the token and revoke bodies as RFC 6749 errors (D2, used by app.ts):
 * a repeated parameter or a malformed body is `invalid_request`, a grant_type the service
 * does not know is `unsupported_grant_type`. The D2 `issues` stay.
 */
export function oauthValidationError(
  req: Pick<Request, 'is' | 'body' | 'path'>,
  message: string,
  issues: RefusalIssue[] | undefined,
): Refusal {
  const repeated = repeatedParameter(req);
  if (repeated !== undefined) return oauthFailure('invalid_request', `repeated parameter: ${repeated}`);
  const grantType = (req.body as { grant_type?: unknown } | undefined)?.grant_type;
  if (
    req.path === contract.oauth.token.path &&
    typeof grantType === 'string' &&
    !(GRANT_TYPES as readonly string[]).includes(grantType)
  ) {
    return oauthFailure('unsupported_grant_type', 'unsupported grant_type');
  }
  return refuse.oauth('invalid_request', message, issues ? { issues } : {});
}

/** `application/x-www-form-urlencoded` decoding of a Basic user or password (RFC 6749 §2.3.1). */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * Client authentication (RFC 6749 §2.3.1, D11): HTTP Basic or `client_id` + `client_secret`
 * in the body, never both (400 `invalid_request`). Any failure is 401 `invalid_client`, the
 * same for an unknown client and a wrong secret.
 */
async function authenticateCaller(
  ctx: RouteContext,
  req: Request,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
): Promise<AuthenticatedClient> {
  const repeated = repeatedParameter(req);
  if (repeated !== undefined) throw oauthFailure('invalid_request', `repeated parameter: ${repeated}`);
  const header = req.headers.authorization;
  const inBody = body.client_id !== undefined || body.client_secret !== undefined;
  let clientId: string | undefined;
  let secret: string | undefined;
  if (header !== undefined) {
    if (inBody) throw oauthFailure('invalid_request', 'send client credentials as HTTP Basic or in the body, not both');
    const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
    if (!match) throw oauthFailure('invalid_client', 'client authentication must use HTTP Basic', true);
    const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    try {
      if (colon > 0) {
        clientId = formDecode(decoded.slice(0, colon));
        secret = formDecode(decoded.slice(colon + 1));
      }
    } catch {
      // malformed percent-encoding: an authentication failure like any other
    }
  } else {
    clientId = body.client_id;
    secret = body.client_secret;
  }
  const client = clientId && secret ? await authenticateClient(ctx.db, clientId, secret) : undefined;
  if (!client) throw oauthFailure('invalid_client', 'client authentication failed', header !== undefined || !inBody);
  return client;
}

function tokenResponse(tokens: TokenSet): TTokenResponse {
  return {
    access_token: tokens.accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_S,
    ...(tokens.refreshToken !== undefined ? { refresh_token: tokens.refreshToken } : {}),
    scope: tokens.scopes.join(' '),
  };
}

/** The tokens of one grant of the token endpoint (RFC 6749 §4.1.3, §4.4, §6; D10-D12). */
async function grant(
  ctx: RouteContext,
  client: Parameters<typeof refreshTokens>[2],
  body: TTokenRequest,
): Promise<TokenSet> {
  const { db } = ctx;
  const keys = ctx.auth.keys;
  switch (body.grant_type) {
    case 'authorization_code':
      return exchangeAuthorizationCode(db, keys, client, {
        code: body.code,
        redirectUri: body.redirect_uri,
        codeVerifier: body.code_verifier,
      });
    case 'refresh_token':
      return refreshTokens(db, keys, client, { refreshToken: body.refresh_token, scopes: requestedScopes(body) });
    case 'client_credentials':
      return clientCredentialsToken(db, keys, client, { storeId: body.store_id, scopes: requestedScopes(body) });
  }
}

/** Token, revoke, authorize/approve and discovery (D10-D13, D17). */
export function oauthHandlers(ctx: RouteContext): Omit<GroupHandlers<Contract['oauth']>, 'sessionVerify'> {
  const { db } = ctx;
  const keys = ctx.auth.keys;
  const base = ctx.config.publicBaseUrl.replace(/\/+$/, '');
  return {
    /** D11, D12: Cache-Control: no-store is set for every answer of this path in app.ts. */
    async token({ req, body }) {
      const client = await authenticateCaller(ctx, req, body);
      try {
        return { status: 200, body: tokenResponse(await grant(ctx, client, body)) };
      } catch (err) {
        // D12, D10: a replayed code or refresh token has just revoked its family; this process
        // applies that before it answers, so the next call here is refused already.
        if (err instanceof Refusal && err.detail.oauthCode === 'invalid_grant') await ctx.auth.revocations.refresh();
        throw err;
      }
    },

    /** RFC 7009, D13: 200 `{}` for an authenticated client, whether or not the token was known. */
    async revoke({ req, body }) {
      const client = await authenticateCaller(ctx, req, body);
      await revokeToken(db, keys, client, body.token);
      // D13: applied in this process before answering; the others hear of it at commit.
      await ctx.auth.revocations.refresh();
      return { status: 200, body: {} };
    },

    /** D10: the consent preview; writes nothing. */
    async authorize({ req, body }) {
      const user = dashboardUserOf(req);
      const preview = await previewInstall(db, { ...body, userId: user.userId });
      return { status: 200, body: { data: preview } };
    },

    /** D10: installs (or updates the installation) and issues a single-use code. */
    async approve({ req, body }) {
      const user = dashboardUserOf(req);
      const approved = await approveInstall(db, { ...body, userId: user.userId });
      return { status: 200, body: { data: approved } };
    },

    /** D17: RFC 8414 metadata; every endpoint an absolute URL under the issuer. */
    async discovery() {
      return {
        status: 200,
        body: {
          issuer: base,
          // D40: GET is the browser's sign-in and consent page (server/src/pages/authorize.tsx);
          // POST stays the dashboard's JSON consent preview (D10).
          authorization_endpoint: `${base}${contract.oauth.authorize.path}`,
          token_endpoint: `${base}${contract.oauth.token.path}`,
          revocation_endpoint: `${base}${contract.oauth.revoke.path}`,
          scopes_supported: [...SCOPES],
          response_types_supported: ['code'],
          grant_types_supported: [...GRANT_TYPES],
          token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
          revocation_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
          code_challenge_methods_supported: ['S256'],
          service_documentation: `${base}/docs`,
        },
      };
    },
  };
}
