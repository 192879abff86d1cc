import type { AppRoute } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import { STATUS_NAMES } from './errors';
import { contract } from './index';
import { isRouteMeta, type RouteMeta } from './meta';
import { familyScopes, formatScopeRule, SCOPE_DESCRIPTIONS, type Scope, type ScopeRule } from './scopes';

export const API_VERSION = '1.0.0';

/** Human names of the contract's route groups, used as OpenAPI tags. */
const TAGS: Record<string, string> = {
  oauth: 'OAuth 2.0 token, revocation, install consent and session verification',
  auth: 'Dashboard login',
  apps: 'App registration and webhook event log',
  stores: 'Installations and embedded-app session tokens',
  orders: 'Orders and fulfillments',
  claims: 'Claims',
  products: 'Product catalogue',
  settings: 'Merchant settings and partner contexts',
  cohorts: 'Partner cohort price sets and widget configs',
  pricing: 'Merchant pricing rule sets',
  widgets: 'Merchant widget configs',
  quote: 'Stateless quotes',
  public: 'Public shopper reads (no authentication)',
};

const AUTH_TEXT: Record<RouteMeta['auth'], string> = {
  public: 'Public: no authentication.',
  client: 'OAuth client authentication: client_id and client_secret in the body or as HTTP Basic, never both (D11).',
  dashboard: 'Dashboard user JWT from `POST /v1/auth/login` (D8).',
  token: 'App access token (`svc_at_…`) bound to one store (D7).',
};

/** The scopes OpenAPI lists for a rule: any of them satisfies the route (group rule, D16). */
function scopesOf(rule: ScopeRule): Scope[] {
  switch (rule.kind) {
    case 'none':
      return [];
    case 'anyOf':
      return [...rule.scopes];
    case 'conditional':
      return [rule.base];
    case 'perType':
      return familyScopes(rule.family, rule.action);
  }
}

function security(meta: RouteMeta): Record<string, string[]>[] {
  switch (meta.auth) {
    case 'public':
      return [];
    case 'client':
      // HTTP Basic, or (the empty alternative) client_id and client_secret in the body.
      return [{ clientBasic: [] }, {}];
    case 'dashboard':
      return [{ dashboardJwt: [] }];
    case 'token': {
      const scopes = scopesOf(meta.scopes);
      if (meta.scopes.kind === 'perType' || meta.scopes.kind === 'conditional') {
        // Each alternative is one type's scope; `requires` or `base` is needed as well.
        const extra = meta.scopes.kind === 'perType' ? meta.scopes.requires : undefined;
        return scopes.map((s) => ({ oauth2: extra ? [extra, s] : [s] }));
      }
      return scopes.map((s) => ({ oauth2: [s] }));
    }
  }
}

/**
 * The OpenAPI 3.0 document of the whole contract. Pure: the same contract gives the same
 * document, so the committed `openapi.json` can be compared with a fresh generation.
 */
export function buildOpenApi(): Record<string, unknown> {
  const doc = generateOpenApi(
    contract,
    {
      info: {
        title: 'Protection Service API',
        version: API_VERSION,
        description: [
          'Sells and administers purchase protection (shipping insurance and extended warranty) for merchant stores.',
          'Authenticated `/v2` success bodies are wrapped as `{"data": …}` (D1). Every failure is `{statusCode, message, error}`',
          '(D2), with `issues` on validation failures; every response carries `x-request-id`. Rate limits (D4) answer 429 with',
          '`Retry-After` and `RateLimit-*` headers. Token-authenticated POSTs accept an `Idempotency-Key` header (D33).',
        ].join(' '),
      },
      tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description:
              'App access tokens for one store. Earlier-style scope names are accepted as aliases when requesting scopes (D16).',
            flows: {
              authorizationCode: {
                authorizationUrl: '/v1/oauth/authorize',
                tokenUrl: '/v1/oauth/token',
                refreshUrl: '/v1/oauth/token',
                scopes: SCOPE_DESCRIPTIONS,
              },
              clientCredentials: { tokenUrl: '/v1/oauth/token', scopes: SCOPE_DESCRIPTIONS },
            },
          },
          dashboardJwt: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Dashboard user token (D8).',
          },
          clientBasic: { type: 'http', scheme: 'basic', description: 'OAuth client id and secret (RFC 6749 §2.3.1).' },
        },
      },
    },
    { setOperationId: 'concatenated-path', operationMapper: mapOperation as never },
  );
  return doc as unknown as Record<string, unknown>;
}

function mapOperation(operation: Record<string, any>, route: AppRoute): Record<string, any> {
  const meta = route.metadata;
  if (!isRouteMeta(meta)) throw new Error(`route ${route.method} ${route.path} has no metadata`);
  const scopeText = meta.scopes.kind === 'none' ? '' : ` Scopes: \`${formatScopeRule(meta.scopes)}\`.`;
  const decisions = [meta.source, ...(meta.decisions ?? [])].filter((d) => d !== 'spec');
  const cites = decisions.length ? ` Decisions: ${[...new Set(decisions)].join(', ')}.` : '';
  const responses = Object.fromEntries(
    Object.entries(operation.responses as Record<string, { description: string }>).map(([status, r]) => [
      status,
      { ...r, description: r.description === status ? describeStatus(Number(status)) : r.description },
    ]),
  );
  const body = operation.requestBody?.content?.['application/json'];
  const requestBody =
    body && (route.path === '/v1/oauth/token' || route.path === '/v1/oauth/revoke')
      ? { ...operation.requestBody, content: { 'application/json': body, 'application/x-www-form-urlencoded': body } }
      : operation.requestBody;
  return {
    ...operation,
    ...(requestBody ? { requestBody: { ...requestBody, description: undefined, required: true } } : {}),
    description: `${operation.description ?? ''}\n\n${AUTH_TEXT[meta.auth]}${scopeText}${cites}`.trim(),
    responses,
    security: security(meta),
    'x-auth': meta.auth,
    'x-scopes': formatScopeRule(meta.scopes),
  };
}

function describeStatus(status: number): string {
  if (status >= 200 && status < 300) return 'Success';
  if (status === 304) return 'Not Modified: the `If-None-Match` ETag still matches';
  return STATUS_NAMES[status as keyof typeof STATUS_NAMES] ?? String(status);
}
