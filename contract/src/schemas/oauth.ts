import { z } from 'zod';
import { SCOPES } from '../scopes';
import { ZEmail, ZId, ZUrl } from './common';

/**
 * OAuth 2.0 (spec "Authentication", D10-D13, D15, D17): token, revoke, session verify,
 * install (authorize/approve) and discovery bodies.
 */

// ---------------------------------------------------------------------------------------------
// Credentials and their prefixes (spec, D5).

export const CREDENTIAL_PREFIXES = {
  accessToken: 'svc_at_',
  refreshToken: 'svc_rt_',
  clientId: 'svc_app_',
  clientSecret: 'svc_secret_',
} as const;

/**
 * Longest access token: a signed JWT carrying its claims and scopes, about 1.1 KB with the
 * whole catalog (D16); the bound leaves room for a long issuer URL.
 */
export const MAX_ACCESS_TOKEN_LENGTH = 4096;

/** Issued access token (response side: always carries its prefix). */
export const ZAccessToken = z
  .string()
  .startsWith(CREDENTIAL_PREFIXES.accessToken)
  .max(MAX_ACCESS_TOKEN_LENGTH)
  .describe('Access token `svc_at_…`');
/** Issued refresh token (response side). */
export const ZRefreshToken = z
  .string()
  .startsWith(CREDENTIAL_PREFIXES.refreshToken)
  .max(512)
  .describe('Refresh token `svc_rt_…`');
/** Client id as the service shows it (response side). */
export const ZClientId = z.string().startsWith(CREDENTIAL_PREFIXES.clientId).max(255).describe('Client id `svc_app_…`');
/** Client secret as the service shows it, once (response side, D9). */
export const ZClientSecret = z
  .string()
  .startsWith(CREDENTIAL_PREFIXES.clientSecret)
  .max(255)
  .describe('Client secret `svc_secret_…` (shown once)');

/**
 * Credentials on the request side are bounded strings, not prefix-checked: a malformed or
 * foreign value is an authentication or grant failure (`invalid_client`, `invalid_grant`),
 * never a 400 `invalid_request` that would tell a caller which part was wrong.
 */
const credential = (what: string, max = 512) => z.string().min(1).max(max).describe(what);

// ---------------------------------------------------------------------------------------------
// Scopes in requests.

/**
 * RFC 6749 §3.3 scope-token: printable ASCII without space, `"` and `\`. Any such string is
 * accepted here, earlier style (`read_orders`) or later style (`order:read`); the server
 * normalizes it (`normalizeScope`, D16) and refuses an unknown one as `invalid_scope`.
 */
export const SCOPE_TOKEN_PATTERN = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;
export const MAX_REQUESTED_SCOPES = 50;
export const ZScopeName = z
  .string()
  .max(128)
  .regex(SCOPE_TOKEN_PATTERN, 'must be a scope name (1-128 printable characters, no space)')
  .describe('Scope, later style (`order:read`) or earlier style (`read_orders`) (D16)');
export const ZScopeList = z.array(ZScopeName).max(MAX_REQUESTED_SCOPES);

/** `scope` as RFC 6749 sends it: scope names separated by single spaces. */
export const ZScopeString = z
  .string()
  .max(MAX_REQUESTED_SCOPES * 129)
  .regex(
    /^[\x21\x23-\x5b\x5d-\x7e]{1,128}( [\x21\x23-\x5b\x5d-\x7e]{1,128})*$/,
    'must be scope names separated by single spaces',
  )
  .refine((s) => s.split(' ').length <= MAX_REQUESTED_SCOPES, `at most ${MAX_REQUESTED_SCOPES} scopes`)
  .describe('Space-separated scopes (RFC 6749 §3.3), the form-encoded spelling of `scopes`');

/** Granted scopes in answers: always later style (D11, D16). */
export const ZGrantedScopes = z.array(z.enum(SCOPES));

/** Splits a `scope` string or takes a `scopes` array: what the request asked for, or undefined. */
export function requestedScopes(body: {
  scopes?: string[] | undefined;
  scope?: string | undefined;
}): string[] | undefined {
  if (body.scopes !== undefined) return body.scopes;
  if (body.scope !== undefined) return body.scope.split(' ');
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// PKCE (RFC 7636, D10, D11).

/** unreserved characters, 43-128 of them (RFC 7636 §4.1). */
export const PKCE_VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
export const ZCodeVerifier = z
  .string()
  .max(128)
  .regex(PKCE_VERIFIER_PATTERN, 'must be 43-128 characters of [A-Za-z0-9-._~]')
  .describe('PKCE code verifier, 43-128 characters of [A-Za-z0-9-._~] (RFC 7636, D11)');
export const ZCodeChallenge = z
  .string()
  .max(128)
  .regex(PKCE_VERIFIER_PATTERN, 'must be 43-128 characters of [A-Za-z0-9-._~]')
  .describe('PKCE challenge: BASE64URL(SHA-256(verifier)) without padding, 43 characters for S256 (D10)');
/** Only S256 is accepted (D10); `plain` never is. */
export const ZCodeChallengeMethod = z.literal('S256');

// ---------------------------------------------------------------------------------------------
// POST /v1/oauth/token (spec, D11, D12).

/** Client authentication in the body; alternatively HTTP Basic, never both (D11). */
const clientAuthFields = {
  client_id: credential('Client id `svc_app_…`; omit when sent as HTTP Basic (D11)', 255).optional(),
  client_secret: credential('Client secret `svc_secret_…`; omit when sent as HTTP Basic (D11)', 255).optional(),
};

/** `scopes` (JSON array, spec) or `scope` (space-separated, RFC 6749 / form bodies, D11). */
const scopeFields = {
  scopes: ZScopeList.optional().describe('Scopes as an array (spec, JSON bodies)'),
  scope: ZScopeString.optional(),
};

export const ZAuthorizationCodeGrant = z
  .object({
    grant_type: z.literal('authorization_code'),
    ...clientAuthFields,
    code: credential('The single-use authorization code from the approve redirect (D10)'),
    redirect_uri: z.string().min(1).max(2048).describe('Must equal the redirect URI used at authorization (spec)'),
    code_verifier: ZCodeVerifier.optional().describe(
      'Required when a code challenge was given at authorization; refused without one (spec, D11)',
    ),
  })
  .strict();

export const ZRefreshTokenGrant = z
  .object({
    grant_type: z.literal('refresh_token'),
    ...clientAuthFields,
    // Bounded like an access token, so one sent here by mistake is `invalid_grant` (D16), not a 400 on length.
    refresh_token: credential(
      'The latest refresh token `svc_rt_…`; a retired one revokes the family (D12)',
      MAX_ACCESS_TOKEN_LENGTH,
    ),
    ...scopeFields,
  })
  .strict();

export const ZClientCredentialsGrant = z
  .object({
    grant_type: z.literal('client_credentials'),
    ...clientAuthFields,
    store_id: ZId.describe('The store the app is installed on (spec: required)'),
    ...scopeFields,
  })
  .strict();

/**
 * Token request, discriminated by `grant_type` (spec, D11). Sent as JSON (spec) or as
 * `application/x-www-form-urlencoded` (RFC 6749, D11); in a form body scopes are sent as
 * `scope`, one space-separated string, because a repeated parameter is refused (D11).
 * `scopes` and `scope` are alternatives: sending both is refused. On a refresh they may
 * narrow the grant, never widen it; on client credentials they filter the installation's
 * scopes (`invalid_scope` when not a subset).
 */
export const ZTokenRequest = z
  .discriminatedUnion('grant_type', [ZAuthorizationCodeGrant, ZRefreshTokenGrant, ZClientCredentialsGrant])
  .superRefine((body, ctx) => {
    if (body.grant_type !== 'authorization_code' && body.scopes !== undefined && body.scope !== undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['scope'], message: 'send either scopes or scope, not both' });
    }
  })
  .describe('Token request (spec, D11)');
export type TTokenRequest = z.infer<typeof ZTokenRequest>;
export type TTokenRequestInput = z.input<typeof ZTokenRequest>;
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

/** Token response (spec). Sent with `Cache-Control: no-store` (D11). */
export const ZTokenResponse = z
  .object({
    access_token: ZAccessToken,
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().positive().describe('Seconds; 3600 (spec)'),
    refresh_token: ZRefreshToken.optional().describe('Absent for client_credentials (RFC 6749 §4.4.3, D11)'),
    scope: z.string().max(4096).describe('Space-separated granted scopes, later style (spec, D11)'),
  })
  .strict()
  .describe('Token response (spec)');
export type TTokenResponse = z.infer<typeof ZTokenResponse>;

// ---------------------------------------------------------------------------------------------
// POST /v1/oauth/revoke (spec, RFC 7009, D13).

/**
 * Revoke body. The spec lists client_id and client_secret as required; they are optional in
 * the body only because, as on the token endpoint, HTTP Basic may carry them (D11). Client
 * authentication by one of the two means is required (401 `invalid_client` otherwise).
 */
export const ZRevokeRequest = z
  .object({
    token: credential('The access token `svc_at_…` or refresh token `svc_rt_…` to revoke', MAX_ACCESS_TOKEN_LENGTH),
    ...clientAuthFields,
    token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
  })
  .strict()
  .describe('Revocation request (spec, RFC 7009)');
export type TRevokeRequest = z.infer<typeof ZRevokeRequest>;

/**
 * Revoke answer: an empty JSON object. RFC 7009 §2.2 allows any body with 200; `{}` keeps
 * every answer of the endpoint JSON and is the same whether or not the token was known (D13).
 */
export const ZRevokeResponse = z.object({}).strict().describe('Empty object (RFC 7009 §2.2, D13)');
export type TRevokeResponse = z.infer<typeof ZRevokeResponse>;

// ---------------------------------------------------------------------------------------------
// POST /v1/oauth/session/verify (spec, D15).

export const ZSessionVerifyRequest = z
  .object({
    session_token: z.string().min(1).max(4096).describe('The HS256 JWT from the embedded app iframe URL (D15)'),
  })
  .strict();
export type TSessionVerifyRequest = z.infer<typeof ZSessionVerifyRequest>;

/**
 * Verified session (spec). `firstName`/`lastName` are null when the dashboard user has none
 * (users are created by the CLI, names optional, D8).
 */
export const ZSessionVerifyResponse = z
  .object({
    userId: ZId,
    email: ZEmail,
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    storeId: ZId,
    installationId: ZId,
    applicationId: ZClientId.describe("The app's client id (D5)"),
    clientId: ZClientId,
    scopes: ZGrantedScopes.describe('Scopes granted to the installation, later style'),
  })
  .strict()
  .describe('Verified session (spec)');
export type TSessionVerifyResponse = z.infer<typeof ZSessionVerifyResponse>;

// ---------------------------------------------------------------------------------------------
// POST /v1/oauth/authorize and /authorize/approve (D10).

/** `state`: printable ASCII (RFC 6749 VSCHAR), echoed on the redirect. */
export const ZOAuthState = z
  .string()
  .max(1024)
  .regex(/^[\x20-\x7e]{1,1024}$/, 'must be 1-1024 printable ASCII characters')
  .describe('Opaque value echoed as `state` on the redirect (CSRF protection)');

/**
 * Install request (D10). `scopes` defaults to the app's registered `requestedScopes`.
 * PKCE: `codeChallenge` needs `codeChallengeMethod: "S256"` (an absent method would mean
 * `plain`, which is not supported, RFC 7636 §4.3); a method without a challenge is refused.
 */
export const ZAuthorizeRequest = z
  .object({
    clientId: ZId.describe('Client id `svc_app_…`'),
    redirectUri: z.string().min(1).max(2048).describe('Must equal a registered redirect URI exactly (D10)'),
    storeId: ZId.describe('A store the dashboard user belongs to'),
    scopes: ZScopeList.optional().describe("Defaults to the app's requested scopes"),
    state: ZOAuthState.optional(),
    codeChallenge: ZCodeChallenge.optional(),
    codeChallengeMethod: ZCodeChallengeMethod.optional().describe('Only S256 (D10)'),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.codeChallenge !== undefined && body.codeChallengeMethod === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['codeChallengeMethod'],
        message: 'codeChallengeMethod S256 is required with codeChallenge',
      });
    }
    if (body.codeChallengeMethod !== undefined && body.codeChallenge === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['codeChallenge'],
        message: 'codeChallenge is required with codeChallengeMethod',
      });
    }
  })
  .describe('Install request (D10)');
export type TAuthorizeRequest = z.infer<typeof ZAuthorizeRequest>;

/** Approve takes the same fields as authorize (D10). */
export const ZApproveRequest = ZAuthorizeRequest;
export type TApproveRequest = TAuthorizeRequest;

export const ZStoreSummary = z
  .object({
    id: ZId,
    name: z.string(),
    domain: z.string().describe('The store domain (D7; the `store_url` of the public quote read)'),
  })
  .strict();
export type TStoreSummary = z.infer<typeof ZStoreSummary>;

/** Consent preview (D10). */
export const ZConsentPreview = z
  .object({
    app: z
      .object({
        clientId: ZClientId,
        name: z.string(),
        distribution: z.enum(['public', 'private']),
      })
      .strict(),
    store: ZStoreSummary,
    redirectUri: z.string().describe('The matched registered redirect URI'),
    requestedScopes: ZGrantedScopes.describe('Requested scopes, normalized to later style'),
    grantableScopes: ZGrantedScopes.describe('The requested scopes an approval grants'),
    withheldScopes: ZGrantedScopes.describe(
      'Requested but not grantable: admin-gated pricing scopes of a private or unapproved public app (D9)',
    ),
    installedScopes: ZGrantedScopes.nullable().describe(
      'Scopes of the current installation on this store, null when the app is not installed',
    ),
  })
  .strict()
  .describe('Consent preview (D10)');
export type TConsentPreview = z.infer<typeof ZConsentPreview>;

/** Approve answer (spec, D10). */
export const ZApproveResponse = z
  .object({
    code: z.string().min(1).max(512).describe('Single-use authorization code, valid 10 minutes (D10)'),
    redirectUri: ZUrl.describe('The registered redirect URI with `code` and `state` added as query parameters (D10)'),
  })
  .strict();
export type TApproveResponse = z.infer<typeof ZApproveResponse>;

// ---------------------------------------------------------------------------------------------
// GET /.well-known/oauth-authorization-server (RFC 8414, D17).

export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

export const ZAuthorizationServerMetadata = z
  .object({
    issuer: ZUrl.describe('The service base URL; also the `iss` of session tokens (D15)'),
    authorization_endpoint: ZUrl.describe(
      'Where installs are approved: the dashboard consent page that drives POST /v1/oauth/authorize (D10)',
    ),
    token_endpoint: ZUrl,
    revocation_endpoint: ZUrl,
    scopes_supported: ZGrantedScopes.describe('The later-style catalog (D16)'),
    response_types_supported: z.array(z.literal('code')),
    grant_types_supported: z.array(z.enum(GRANT_TYPES)),
    token_endpoint_auth_methods_supported: z.array(z.enum(TOKEN_ENDPOINT_AUTH_METHODS)),
    revocation_endpoint_auth_methods_supported: z.array(z.enum(TOKEN_ENDPOINT_AUTH_METHODS)),
    code_challenge_methods_supported: z.array(z.literal('S256')),
    service_documentation: ZUrl.optional(),
  })
  .strict()
  .describe('Authorization server metadata (RFC 8414, D17)');
export type TAuthorizationServerMetadata = z.infer<typeof ZAuthorizationServerMetadata>;
