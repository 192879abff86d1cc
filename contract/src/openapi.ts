import { type AppRoute, extractZodObjectShape, isZodObject } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import { z } from 'zod';
import { STATUS_NAMES, ZError, ZOAuthError } from './errors';
import { contract } from './index';
import { isRouteMeta, type RouteMeta } from './meta';
import { ZClaim } from './schemas/claims';
import { acceptedFamilyScopes, formatScopeRule, SCOPE_DESCRIPTIONS, type Scope, type ScopeRule } from './scopes';

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
      return acceptedFamilyScopes(rule.family, rule.action);
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
  // Component schemas met while mapping operations; filled by `mapOperation`.
  const schemas: Record<string, unknown> = {};
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
    {
      setOperationId: 'concatenated-path',
      operationMapper: ((operation: Record<string, any>, route: AppRoute) =>
        mapOperation(operation, route, schemas)) as never,
    },
  );
  const components = doc.components as Record<string, unknown>;
  components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  // The same schemas nested elsewhere (for example a list of claims) become references too.
  const refs = new Map(Object.entries(schemas).map(([name, schema]) => [JSON.stringify(schema), name]));
  doc.paths = useRefs(doc.paths, refs) as typeof doc.paths;
  return doc as unknown as Record<string, unknown>;
}

/**
 * Response schemas emitted once under `components.schemas` and referenced with `$ref`: the
 * D2 error bodies are on nearly every operation, and inlining them tripled the document.
 * A response is matched by identity with the contract's zod schema; nested copies are then
 * matched by their generated JSON being identical (`useRefs`).
 */
const SHARED_RESPONSES = new Map<z.ZodTypeAny, string>([
  [ZError, 'Error'],
  [ZOAuthError, 'OAuthError'],
  [ZClaim, 'Claim'],
]);

/** A copy of `value` in which every schema identical to a component is a `$ref` to it. */
function useRefs(value: unknown, refs: Map<string, string>): unknown {
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => useRefs(v, refs));
  const name = refs.get(JSON.stringify(value));
  if (name) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, useRefs(v, refs)]));
}

function mapOperation(
  generated: Record<string, any>,
  route: AppRoute,
  schemas: Record<string, unknown>,
): Record<string, any> {
  const operation = openApi30(generated) as Record<string, any>;
  const meta = route.metadata;
  if (!isRouteMeta(meta)) throw new Error(`route ${route.method} ${route.path} has no metadata`);
  const scopeText = meta.scopes.kind === 'none' ? '' : ` Scopes: \`${formatScopeRule(meta.scopes)}\`.`;
  const decisions = [meta.source, ...(meta.decisions ?? [])].filter((d) => d !== 'spec');
  const cites = decisions.length ? ` Decisions: ${[...new Set(decisions)].join(', ')}.` : '';
  const responses = Object.fromEntries(
    Object.entries(operation.responses as Record<string, { description: string; content?: any }>).map(([status, r]) => {
      const described = {
        ...r,
        description: r.description === status ? describeStatus(Number(status)) : r.description,
      };
      const name = SHARED_RESPONSES.get((route.responses as Record<string, unknown>)[status] as z.ZodTypeAny);
      const json = r.content?.['application/json'];
      if (!name || !json?.schema) return [status, described];
      schemas[name] ??= json.schema;
      return [
        status,
        {
          ...described,
          content: { 'application/json': { ...json, schema: { $ref: `#/components/schemas/${name}` } } },
        },
      ];
    }),
  );
  // Failures any operation can answer before its handler runs (a body the server cannot read)
  // or when the service itself fails, documented once here rather than on every route.
  const oauth = (route.responses as Record<number, unknown>)[400] === ZOAuthError;
  for (const [status, schema] of [
    [413, oauth ? 'OAuthError' : 'Error'],
    [415, oauth ? 'OAuthError' : 'Error'],
    [500, 'Error'],
  ] as const) {
    responses[status] ??= {
      description: describeStatus(status),
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
    };
  }
  const body = operation.requestBody?.content?.['application/json'];
  const requestBody =
    body && (route.path === '/v1/oauth/token' || route.path === '/v1/oauth/revoke')
      ? { ...operation.requestBody, content: { 'application/json': body, 'application/x-www-form-urlencoded': body } }
      : operation.requestBody;
  return {
    ...operation,
    ...(operation.parameters ? { parameters: operation.parameters.map((p: any) => withQuerySchema(p, route)) } : {}),
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

/**
 * Query integers and numbers arrive as strings and are parsed with a pipe
 * (`ZQueryInt`: string regex, transform, `z.number()` checks), which the zod-to-OpenAPI
 * converter renders as `{}`. Describe them from the pipe's output: the value a client
 * writes in the query string, with its bounds.
 */
function withQuerySchema(parameter: Record<string, any>, route: AppRoute): Record<string, any> {
  if (parameter.in !== 'query' || Object.keys(parameter.schema ?? {}).length > 0) return parameter;
  const shape = isZodObject(route.query) ? (extractZodObjectShape(route.query) as Record<string, z.ZodTypeAny>) : {};
  const field = shape[parameter.name];
  const schema = field ? numberSchema(field) : undefined;
  if (!schema)
    throw new Error(`${route.method} ${route.path}: query parameter ${parameter.name} has no OpenAPI schema`);
  return { ...parameter, schema };
}

function numberSchema(type: z.ZodTypeAny): Record<string, unknown> | undefined {
  let t: z.ZodTypeAny = type;
  while (t instanceof z.ZodOptional || t instanceof z.ZodDefault || t instanceof z.ZodNullable) t = t._def.innerType;
  if (!(t instanceof z.ZodPipeline)) return undefined;
  const out = t._def.out as z.ZodTypeAny;
  if (!(out instanceof z.ZodNumber)) return undefined;
  const schema: Record<string, unknown> = { type: out.isInt ? 'integer' : 'number' };
  if (out.minValue !== null) schema.minimum = out.minValue;
  if (out.maxValue !== null) schema.maximum = out.maxValue;
  return schema;
}

/**
 * The zod converter writes JSON Schema 2019 exclusive bounds (`exclusiveMinimum: 0` for
 * `.positive()`); OpenAPI 3.0 wants `minimum: 0, exclusiveMinimum: true`. It sets `minimum`
 * and `maximum` to the bound as well, so only the flags change.
 */
function openApi30(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(openApi30);
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, openApi30(v)]));
  if (out.type === 'number' || out.type === 'integer') {
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (typeof out[flag] === 'number') {
        out[bound] = out[flag];
        out[flag] = true;
      }
    }
  }
  return out;
}
