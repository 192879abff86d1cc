import { type AppRoute, extractZodObjectShape, isZodObject } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import { z } from 'zod';
import { STATUS_NAMES, ZError, ZOAuthError } from './errors';
import * as contractModule from './index';
import { isRouteMeta, type RouteMeta } from './meta';
import { routerKeys, withCodeSamples } from './openapi-code-samples';
import { withExamples } from './openapi-examples';
import { ZClaim } from './schemas/claims';
import { FILE_MAX_BYTES } from './schemas/files';
import { acceptedFamilyScopes, formatScopeRule, SCOPE_DESCRIPTIONS, type Scope, type ScopeRule } from './scopes';
import {
  API_VERSIONS,
  type ApiVersion,
  contractFor,
  isVersionedRoute,
  LATEST_API_VERSION,
  VERSION_LIFECYCLE,
  withWebhookBodiesOf,
} from './versions/index';

/** The server named by the committed document; the live one names its own public address. */
export const PLACEHOLDER_SERVER = 'https://protection-service.invalid';
/** The committed document describes no one deployment: it says where each names its own. */
const PLACEHOLDER_SERVER_TEXT =
  'A placeholder: each deployment serves this document at /openapi.json naming its own address and its environment (local, test, sandbox, staging or production)';

/**
 * Operation ids whose contract name is not a verb followed by what it acts on, or reads
 * better with another noun than its group's.
 */
const OPERATION_IDS: Record<string, string> = {
  'oauth.token': 'requestToken',
  'claims.export': 'exportClaims',
  'files.upload': 'uploadFile',
  'files.content': 'getFileContent',
  'oauth.revoke': 'revokeToken',
  'oauth.sessionVerify': 'verifySessionToken',
  'oauth.authorize': 'previewConsent',
  'oauth.approve': 'approveConsent',
  'oauth.discovery': 'getAuthorizationServerMetadata',
  'auth.login': 'logIn',
  'auth.refresh': 'refreshDashboardTokens',
  'auth.changePassword': 'changePassword',
  'stores.mintStaffToken': 'mintStaffToken',
  'stores.uninstall': 'uninstallApp',
  'analytics.summary': 'getAnalyticsSummary',
  'analytics.series': 'getAnalyticsSeries',
  'analytics.offers': 'getOfferResults',
  'analytics.offerResults': 'getContextOfferResults',
  'settings.createContext': 'createPartnerContext',
  'settings.listContexts': 'listPartnerContexts',
  'settings.getContext': 'getPartnerContext',
  'settings.updateContext': 'updatePartnerContext',
  'settings.deleteContext': 'deletePartnerContext',
  'testHelpers.advanceClaim': 'advanceTestClaim',
  'testHelpers.addShopperMessage': 'addTestShopperMessage',
  'testHelpers.recordEvent': 'recordTestEvent',
  'testHelpers.flushDeliveries': 'flushTestDeliveries',
  'testHelpers.listMail': 'listTestMail',
  'testHelpers.reset': 'resetTestStore',
};

/**
 * What a parameter means, for the parameters the contract does not describe itself (by where
 * it is and its name).
 */
const PARAMETER_TEXT: Record<string, string> = {
  'path:clientId': "The app's OAuth client id",
  'path:eventId': 'The webhook event id',
  'path:storeId': "The store's id",
  'path:sourceOrderId': "The order's id in the merchant's platform, as the order was written with",
  'path:sourceFulfillmentId': "The fulfillment's id in the merchant's platform",
  'path:claimId': "The claim's id",
  'path:fileId': "The file's id (`file_…`)",
  'path:productId': "The product's id",
  'path:childId': "The child product's id",
  'path:contextId': "The partner context's id",
  'path:priceSetId': "The cohort price set's id",
  'path:widgetConfigId': "The widget config's id",
  'path:ruleSetId': "The pricing rule set's id",
  'path:applicationId': "The partner app's client id",
  'path:sourceId': "The tracking source's id, as its `inboundUrl` names it",
  'query:status': 'Only events in this delivery state',
  'query:claimState': 'Only claims in this state',
  'query:sourceOrderId': 'Only claims on this order',
  'query:storeId': "The store's id (or name it by `store_url`)",
  'query:type': 'Only the widget config of this type',
  'header:idempotency-key':
    'A key of your choosing (1-255 printable characters): within 24 hours the same key with the same request answers the first answer again, with `Idempotent-Replayed: true`, and changes nothing; with another request it answers 409',
  'header:if-none-match': 'The `ETag` of an earlier answer: answers 304 with no body while it still matches',
};

/** What a group's routes act on, singular and plural, for the operation ids. */
const GROUP_NOUNS: Record<string, [string, string]> = {
  apps: ['App', 'Apps'],
  stores: ['Store', 'Stores'],
  members: ['Member', 'Members'],
  orders: ['Order', 'Orders'],
  claims: ['Claim', 'Claims'],
  products: ['Product', 'Products'],
  settings: ['Settings', 'Settings'],
  cohorts: ['Cohort', 'Cohorts'],
  pricing: ['PricingRuleSet', 'PricingRuleSets'],
  widgets: ['WidgetConfig', 'WidgetConfigs'],
  quote: ['Quote', 'Quotes'],
  public: ['Public', 'Public'],
  testHelpers: ['Test', 'Tests'],
  tracking: ['Tracking', 'Tracking'],
  files: ['File', 'Files'],
};

/**
 * The document's operationId of the contract route `group.name` (routes.tsv's `operation`):
 * camelCase, verb first, then what it acts on (`orders.upsert` -> `upsertOrder`,
 * `orders.listClaims` -> `listOrderClaims`, `claims.list` -> `listClaims`).
 */
export function operationIdOf(key: string): string {
  const fixed = OPERATION_IDS[key];
  if (fixed) return fixed;
  const [group = '', name = ''] = key.split('.');
  const nouns = GROUP_NOUNS[group];
  const match = /^([a-z]+)(.*)$/.exec(name);
  if (!nouns || !match) throw new Error(`no operationId for ${key}`);
  const [, verb, rest] = match;
  return `${verb}${rest === '' && verb === 'list' ? nouns[1] : nouns[0]}${rest}`;
}

/** Human names of the contract's route groups, used as OpenAPI tags. */
const TAGS: Record<string, string> = {
  oauth: 'OAuth 2.0 token, revocation, install consent and session verification',
  auth: 'Dashboard login',
  apps: 'App registration and webhook event log',
  stores: 'Installations and embedded-app session tokens',
  members: 'Team members, invitations and merchant notices',
  orders: 'Orders and fulfillments',
  claims: 'Claims',
  analytics: "The store's figures (D52) and what the storefront offer sold (D55)",
  products: 'Product catalogue',
  settings: 'Merchant settings and partner contexts',
  cohorts: 'Partner cohort price sets and widget configs',
  pricing: 'Merchant pricing rule sets',
  widgets: 'Merchant widget configs',
  quote: 'Stateless quotes',
  public: 'Public shopper reads (no authentication)',
  testHelpers: 'Test helpers: drive test stores (test tokens only)',
  tracking: 'Shipment tracking: packages, events, tracking sources and rules (D54)',
  files: 'Files: photos and receipts a claim carries (D56)',
};

/** How the service's JWTs are issued and checked (server/test/auth/jwt-practices.test.ts). */
const JWT_PRACTICES =
  'Tokens are JWTs issued and checked as RFC8725 (JSON Web Token Best Current Practices) asks: one algorithm (HS256), ' +
  'checked along with the signature, issuer, audience and expiry; each kind of token has its own key and audience, so one never passes for another.';

const AUTH_TEXT: Record<RouteMeta['auth'], string> = {
  public: 'Public: no authentication.',
  client: 'OAuth client authentication: client_id and client_secret in the body or as HTTP Basic, never both (D11).',
  dashboard: 'Dashboard user JWT from `POST /v1/auth/login` (D8).',
  token: 'App access token (`svc_at_…`, or `svc_at_test_…` for a test store) bound to one store (D7, D45).',
  provider: "A tracking source's signature over the raw body, in the provider's header; no token (D54).",
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
      // HTTP Basic, or client_id and client_secret in the body, which OpenAPI cannot name:
      // the description says so. An empty alternative would read as "no authentication".
      return [{ clientBasic: [] }];
    case 'dashboard':
      return [{ dashboardJwt: [] }];
    case 'provider':
      return [{ providerSignature: [] }];
    case 'token': {
      const scopes = scopesOf(meta.scopes);
      if (meta.scopes.kind === 'perType' || meta.scopes.kind === 'conditional') {
        // Each alternative is one type's scope; `requires` or `base` is needed as well.
        const extra = meta.scopes.kind === 'perType' ? meta.scopes.requires : undefined;
        return scopes.map((s) => ({ oauth2: extra ? [extra, s] : [s] }));
      }
      // A token route without a scope (the test helpers, D45) still needs a token: an empty
      // list would read as "no authentication".
      if (scopes.length === 0) return [{ oauth2: [] }];
      return scopes.map((s) => ({ oauth2: [s] }));
    }
  }
}

/**
 * The OpenAPI 3.0 document of the whole contract. Pure: the same contract gives the same
 * document, so the committed `openapi.json` can be compared with a fresh generation.
 */
export function buildOpenApi(options: { version?: ApiVersion } = {}): Record<string, unknown> {
  const version = options.version ?? LATEST_API_VERSION;
  // Component schemas met while mapping operations; filled by `mapOperation`.
  const schemas: Record<string, unknown> = {};
  const doc = generateOpenApi(contractFor(version).router as never, documentHead(version), {
    setOperationId: 'concatenated-path', // `group.name`, mapped by `operationIdOf`
    operationMapper: ((operation: Record<string, any>, route: AppRoute) =>
      mapOperation(operation, route, schemas, version)) as never,
  });
  withComponents(doc, schemas, version);
  const out = { ...(plainText(doc) as Record<string, unknown>), openapi: '3.0.3' };
  withExamples(out);
  defaultsInWords(out);
  // D47: a curl and an SDK sample per operation, for the reference page.
  withCodeSamples(out, routerKeys(contractFor(version).router, operationIdOf));
  return out;
}

/** What the document says of itself: its info, server, tags, response headers and security schemes. */
function documentHead(version: ApiVersion) {
  return {
    info: {
      title: 'Protection Service API',
      version,
      contact: {
        name: 'The operator of this deployment',
        url: `${PLACEHOLDER_SERVER}/docs`,
      },
      description: [
        'Sells and administers purchase protection (shipping insurance and extended warranty) for merchant stores.',
        'Authenticated `/v2` success bodies are wrapped as `{"data": …}` (D1). Every failure is `{statusCode, message, error}`',
        '(D2), with `issues` on validation failures; every response carries `x-request-id`. Rate limits (D4) answer 429 with',
        '`Retry-After` and `RateLimit-*` headers. Token-authenticated POSTs accept an `Idempotency-Key` header (D33).',
        ...versionText(version),
      ].join(' '),
    },
    servers: [
      {
        url: PLACEHOLDER_SERVER,
        description: PLACEHOLDER_SERVER_TEXT,
        // The API is for partner apps and storefronts outside the operator's network.
        'x-internal': false,
      },
    ],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    components: {
      headers: VERSION_LIFECYCLE[version].deprecated
        ? { ...RESPONSE_HEADERS, ...DEPRECATION_HEADERS }
        : RESPONSE_HEADERS,
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description:
            'App access tokens for one store. Earlier-style scope names are accepted as aliases when requesting scopes (D16). ' +
            JWT_PRACTICES,
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
          description: `Dashboard user token (D8). ${JWT_PRACTICES}`,
        },
        clientBasic: { type: 'http', scheme: 'basic', description: 'OAuth client id and secret (RFC 6749 §2.3.1).' },
        providerSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Hmac-Signature',
          description:
            "A tracking source's signature over the raw body with its secret (D54): `X-Hmac-Signature: hmac-sha256-hex=<hex>` (easypost), " +
            '`aftership-hmac-sha256: <base64>` (aftership) or `Authorization: Bearer <secret>` (ship24). An unknown source and a bad signature answer the same 401.',
        },
      },
    },
  };
}

/**
 * The document's component schemas: every schema the contract names becomes a component of that
 * name (the SDK's type name without its `T`), and every copy of it in the operations a
 * reference to it; `schemas` are those `mapOperation` met. Only the components an operation
 * reaches are kept.
 */
function withComponents(
  doc: ReturnType<typeof generateOpenApi>,
  schemas: Record<string, unknown>,
  version: ApiVersion,
): void {
  const components = doc.components as Record<string, unknown>;
  const named = namedSchemas(version);
  for (const [name, schema] of Object.entries(schemas)) named.set(name, normalise(schema) as Record<string, unknown>);
  const refs = new Map<string, string>();
  for (const [name, schema] of named) {
    const key = JSON.stringify(withoutDescription(schema));
    if (!refs.has(key)) refs.set(key, name);
  }
  const used = new Set<string>();
  doc.paths = useRefs(normalise(mergeIdenticalPaths(doc.paths)), refs, used) as typeof doc.paths;
  for (const match of JSON.stringify(doc.paths).matchAll(/"#\/components\/schemas\/(\w+)"/g)) used.add(match[1]!);
  // Components refer to each other too; only those an operation reaches are kept.
  const resolved = new Map<string, unknown>();
  const queue = [...used];
  while (queue.length) {
    const name = queue.shift()!;
    if (resolved.has(name)) continue;
    const inner = new Set<string>();
    const schema = named.get(name)!;
    resolved.set(name, Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, useRefs(v, refs, inner)])));
    queue.push(...inner);
  }
  for (const schema of resolved.values()) withMapping(schema as Record<string, any>, named);
  components.schemas = Object.fromEntries([...resolved].sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * A default the server applies is said in words in the description, not as `default`: the
 * most used TypeScript generator (openapi-typescript, default options) makes a property
 * with a `default` in a named schema required, so a request the server accepts without it
 * would not compile (`POST /v2/quote` without `policyType`). Stripe's document states its
 * request defaults in words for the same reason. Run after the examples, which use them.
 */
function defaultsInWords(value: unknown): void {
  if (!value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) defaultsInWords(item);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const [key, inner] of Object.entries(record)) {
    // Examples are values, not schemas: a property of an example may be called `default`.
    if (key !== 'example' && key !== 'examples') defaultsInWords(inner);
  }
  if (!('default' in record) || !('type' in record || 'enum' in record || '$ref' in record || 'allOf' in record))
    return;
  const shown = typeof record.default === 'string' ? record.default : JSON.stringify(record.default);
  const said = `Defaults to \`${shown}\` when left out.`;
  const before = typeof record.description === 'string' ? record.description.trim() : '';
  // A description that says what an omission means already says it.
  if (!/when omitted|when left out|defaults to/i.test(before)) {
    record.description = before ? `${before}${/[.!?]$/.test(before) ? '' : '.'} ${said}` : said;
  }
  delete record.default;
}

/**
 * The JSON schema of every `Z…` schema the contract exports, named without its `Z`: the
 * answer (output) form under the name, and the request (input) form, where it differs, under
 * `…Input` (for a `…Input` schema the other way round, `…Output`). Webhook bodies, and what
 * holds them (the app event log's events), in `version`'s form (D44, `withWebhookBodiesOf`).
 */
function namedSchemas(version: ApiVersion): Map<string, Record<string, unknown>> {
  const entries = (Object.entries(contractModule) as [string, unknown][])
    .filter((entry): entry is [string, z.ZodTypeAny] => /^Z[A-Z]/.test(entry[0]) && entry[1] instanceof z.ZodType)
    .map(([name, schema]) => [name, withWebhookBodiesOf(version, schema)] as [string, z.ZodTypeAny])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const router = Object.fromEntries(
    entries.map(([name, schema]) => [
      name,
      { method: 'POST', path: `/${name}`, body: schema, responses: { 200: schema } },
    ]),
  );
  const generated = generateOpenApi(router as never, { info: { title: '', version: '' } });
  const named = new Map<string, Record<string, unknown>>();
  const seen = new Set<string>();
  for (const [zName] of entries) {
    const op = (generated.paths as Record<string, any>)[`/${zName}`].post;
    const input = normalise(op.requestBody?.content?.['application/json']?.schema) as Record<string, unknown>;
    const output = normalise(op.responses[200]?.content?.['application/json']?.schema) as Record<string, unknown>;
    const name = zName.slice(1);
    const inputFirst = name.endsWith('Input');
    const [main, other] = inputFirst ? [input, output] : [output, input];
    const forms: [string, Record<string, unknown> | undefined][] = [[name, main]];
    if (JSON.stringify(other) !== JSON.stringify(main)) {
      forms.push([inputFirst ? `${name.replace(/Input$/, '')}Output` : `${name}Input`, other]);
    }
    for (const [formName, schema] of forms) {
      if (!schema || !isStructured(schema)) continue;
      const key = JSON.stringify(withoutDescription(schema));
      if (seen.has(key) || named.has(formName)) continue;
      seen.add(key);
      named.set(formName, schema);
    }
  }
  return named;
}

/**
 * The contract's texts cite the decisions of docs/decisions.md (`(D18)`), which a reader of
 * the document cannot look up: the document leaves the citations out; the texts state the
 * rules in words.
 */
const CITED = String.raw`(?:spec|D\d+(?:-D?\d+)?)`;
const CITATIONS: [RegExp, string][] = [
  [new RegExp(String.raw`\s*\(${CITED}(?:(?:,|;| and)\s*${CITED})*\)`, 'g'), ''],
  [new RegExp(String.raw`(?:,|;)\s*${CITED}(?:(?:,|;| and)\s*${CITED})*(?=\))`, 'g'), ''],
  [new RegExp(String.raw`\(${CITED}(?:,|;)\s*`, 'g'), '('],
];

function plainText(value: unknown, key = ''): unknown {
  if (typeof value === 'string') {
    if (key !== 'description' && key !== 'summary') return value;
    return CITATIONS.reduce((text, [pattern, by]) => text.replace(pattern, by), value);
  }
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => plainText(v));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainText(v, k)]));
}

/**
 * OpenAPI forbids two templates that differ only in their parameters' names:
 * `POST /v1/claims/{sourceOrderId}` (file a claim on an order) and `GET /v1/claims/{claimId}`
 * are one path, `/v1/claims/{id}`, whose `id` each operation describes. The server matches
 * them by method, as the document now does.
 */
function mergeIdenticalPaths<T extends Record<string, Record<string, any>>>(paths: T): T {
  const shape = (template: string) => template.replace(/\{[^}]+\}/g, '{}');
  const merged: Record<string, Record<string, any>> = {};
  const templates = new Map<string, string>();
  for (const [template, item] of Object.entries(paths)) {
    const first = templates.get(shape(template));
    if (first === undefined) {
      templates.set(shape(template), template);
      merged[template] = item;
      continue;
    }
    const names = (t: string) => [...t.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    const [a, b] = [names(first), names(template)];
    const renamed = new Map<string, string>();
    a.forEach((name, i) => {
      if (name !== b[i]) renamed.set(name, 'id').set(b[i]!, 'id');
    });
    const rename = (t: string) => t.replace(/\{([^}]+)\}/g, (_, n: string) => `{${renamed.get(n) ?? n}}`);
    const withNames = (operations: Record<string, any>) =>
      Object.fromEntries(
        Object.entries(operations).map(([method, op]) => [
          method,
          {
            ...op,
            parameters: op.parameters?.map((p: Record<string, any>) =>
              p.in === 'path' && renamed.has(p.name) ? { ...p, name: renamed.get(p.name) } : p,
            ),
          },
        ]),
      );
    const target = rename(first);
    const before = merged[first]!;
    delete merged[first];
    merged[target] = { ...withNames(before), ...withNames(item) };
    templates.set(shape(template), target);
  }
  return merged as T;
}

/**
 * A discriminated union of named schemas says which value of the discriminator selects which
 * one: the values (`claim/created`) are not the schemas' names. A union with a member that
 * several values select (a claim move to any of a dozen states) names no discriminator: a
 * mapping cannot say it, and generators would give that member its schema's name as its only
 * value (openapi-typescript does), refusing every real one; the members' enums tell them apart.
 */
function withMapping(schema: Record<string, any>, named: Map<string, Record<string, unknown>>): void {
  const property = schema.discriminator?.propertyName;
  if (typeof property !== 'string' || !Array.isArray(schema.oneOf)) return;
  const mapping: Record<string, string> = {};
  for (const member of schema.oneOf as { $ref?: string }[]) {
    const target = member.$ref && named.get(member.$ref.replace('#/components/schemas/', ''));
    const values = (target as Record<string, any> | undefined)?.properties?.[property]?.enum;
    if (!member.$ref || !Array.isArray(values) || values.length !== 1) {
      delete schema.discriminator;
      return;
    }
    mapping[values[0]] = member.$ref;
  }
  schema.discriminator = { ...schema.discriminator, mapping };
}

/**
 * Objects and unions get a name; strings, numbers, enums and lists of them do not (two enums
 * of the same values, `FundedBy` and `SenderType`, could not be told apart by their JSON).
 */
function isStructured(schema: Record<string, unknown>): boolean {
  if (schema.type === 'object' || schema.properties || schema.oneOf || schema.anyOf || schema.allOf) return true;
  if (schema.type === 'array') return isStructured((schema.items ?? {}) as Record<string, unknown>);
  return false;
}

function withoutDescription(schema: Record<string, unknown>): Record<string, unknown> {
  const { description: _, ...rest } = schema;
  return rest;
}

/**
 * A copy of `value` in which every schema equal to a named one is a reference to it: with its
 * own description kept beside the reference (`allOf` of one, as OpenAPI 3.0 ignores anything
 * beside a bare `$ref`). Nullable copies stay inline. Names referenced are added to `used`.
 */
function useRefs(value: unknown, refs: Map<string, string>, used: Set<string>): unknown {
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => useRefs(v, refs, used));
  const record = value as Record<string, unknown>;
  const name = refs.get(JSON.stringify(withoutDescription(record)));
  if (name) {
    used.add(name);
    const $ref = `#/components/schemas/${name}`;
    return typeof record.description === 'string' ? { description: record.description, allOf: [{ $ref }] } : { $ref };
  }
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, useRefs(v, refs, used)]));
}

/**
 * The document as one deployment serves it: naming its own public address as the server,
 * described by the environment it runs in (`Production deployment`), and its reference page
 * as the contact; otherwise the committed one.
 */
export function forDeployment(
  doc: Record<string, any>,
  server: { url: string; description: string },
): Record<string, unknown> {
  return {
    ...doc,
    info: { ...doc.info, contact: { ...doc.info.contact, url: `${server.url}/docs` } },
    servers: [{ url: server.url, description: server.description, 'x-internal': false }],
  };
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

function mapOperation(
  generated: Record<string, any>,
  route: AppRoute,
  schemas: Record<string, unknown>,
  version: ApiVersion,
): Record<string, any> {
  const operation = openApi30(generated) as Record<string, any>;
  const meta = route.metadata;
  if (!isRouteMeta(meta)) throw new Error(`route ${route.method} ${route.path} has no metadata`);
  const scopeText = meta.scopes.kind === 'none' ? '' : ` Scopes: \`${formatScopeRule(meta.scopes)}\`.`;
  const responses = responsesOf(operation, route, schemas, version);
  const body = operation.requestBody?.content?.['application/json'];
  const requestBody =
    body && (route.path === '/v1/oauth/token' || route.path === '/v1/oauth/revoke')
      ? { ...operation.requestBody, content: { 'application/json': body, 'application/x-www-form-urlencoded': body } }
      : operation.requestBody;
  const multipart = requestBody?.content?.['multipart/form-data']?.schema?.properties?.file;
  // D56: the file part of an upload is its bytes (the contract checks what the server read), at
  // most FILE_MAX_BYTES of them (a binary string's length counts its octets).
  if (multipart) {
    Object.assign(multipart, { type: 'string', format: 'binary', maxLength: FILE_MAX_BYTES });
    delete multipart.nullable;
  }
  const parameters = [
    ...(operation.parameters ?? []).map((p: any) => described(withQuerySchema(p, route), route)),
    ...(isVersionedRoute(route) ? [apiVersionParameter(version)] : []),
  ];
  return {
    ...operation,
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody
      ? {
          requestBody: {
            ...requestBody,
            description: undefined,
            // A body the route may go without (the client secret's rotation, D45) is not required.
            required: !('body' in route && (route.body as z.ZodTypeAny | undefined)?.isOptional?.()),
          },
        }
      : {}),
    description: `${operation.description ?? ''}\n\n${AUTH_TEXT[meta.auth]}${scopeText}`.trim(),
    operationId: operationIdOf(operation.operationId),
    responses,
    security: security(meta),
    'x-auth': meta.auth,
    'x-scopes': formatScopeRule(meta.scopes),
  };
}

/**
 * An operation's responses: each with its status described, the shared bodies (`SHARED_RESPONSES`)
 * as references (met in `schemas`), the failures any operation can answer, and each response's
 * headers.
 */
function responsesOf(
  operation: Record<string, any>,
  route: AppRoute,
  schemas: Record<string, unknown>,
  version: ApiVersion,
): Record<string, unknown> {
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
  // Failures any operation can answer before its handler runs (a body the server cannot read,
  // on every method but GET, whose body is never read, even where the operation takes none)
  // or when the service itself fails, documented once here rather than on every route.
  const oauth = (route.responses as Record<number, unknown>)[400] === ZOAuthError;
  const takesBody = route.method !== 'GET';
  const generic: (readonly [number, 'OAuthError' | 'Error'])[] = [
    ...(takesBody
      ? ([
          [413, oauth ? 'OAuthError' : 'Error'],
          [415, oauth ? 'OAuthError' : 'Error'],
        ] as const)
      : []),
    [500, 'Error'],
    [503, 'Error'],
  ];
  for (const [status, schema] of generic) {
    responses[status] ??= {
      description: describeStatus(status),
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
    };
  }
  // D52: a CSV answer is text, not JSON; the generator names no content for it.
  if (isRouteMeta(route.metadata) && route.metadata.body === 'csv') {
    const success = responses[200]!;
    responses[200] = { ...success, content: { 'text/csv': { schema: { type: 'string' } } } };
  }
  // D56: a stored file's bytes, of the type found in them.
  if (isRouteMeta(route.metadata) && route.metadata.body === 'bytes') {
    const success = responses[200]!;
    const binary = { schema: { type: 'string', format: 'binary' } };
    responses[200] = {
      ...success,
      content: Object.fromEntries(['image/jpeg', 'image/png', 'image/webp', 'application/pdf'].map((t) => [t, binary])),
    };
  }
  for (const [status, response] of Object.entries(responses)) {
    const headers = headersOf(Number(status), operation.operationId, route, version);
    (responses as Record<string, unknown>)[status] = {
      ...response,
      headers: Object.fromEntries(headers.map((h) => [h, { $ref: `#/components/headers/${h}` }])),
    };
  }
  return responses;
}

/** A parameter with its description beside it (not in its schema), from the contract or `PARAMETER_TEXT`. */
function described(parameter: Record<string, any>, route: AppRoute): Record<string, any> {
  const { description: inSchema, ...schema } = parameter.schema ?? {};
  const description = parameter.description ?? inSchema ?? PARAMETER_TEXT[`${parameter.in}:${parameter.name}`];
  if (!description) throw new Error(`${route.method} ${route.path}: parameter ${parameter.name} has no description`);
  return { ...parameter, description, schema };
}

/**
 * The response headers a client relies on, declared once and referenced from each answer that
 * may carry them. The test suite's answer check fails on an answer carrying one of them that
 * the document does not declare for its operation and status.
 */
export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description:
      "The request's id, as sent in `X-Request-Id` when it was a usable one; give it when asking about a request",
    schema: { type: 'string', maxLength: 128 },
  },
  'RateLimit-Limit': {
    description: 'Requests allowed in the current window for this caller (per token, or per IP where there is none)',
    schema: { type: 'integer', format: 'int32', minimum: 0 },
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: { type: 'integer', format: 'int32', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window resets',
    schema: { type: 'integer', format: 'int32', minimum: 0 },
  },
  'Retry-After': {
    description: 'Seconds to wait before sending the request again',
    schema: { type: 'integer', format: 'int32', minimum: 0 },
  },
  ETag: {
    description: 'Names this version of the answer: send it as `If-None-Match` to get 304 while it still holds',
    schema: { type: 'string', maxLength: 128 },
  },
  'Content-Disposition': {
    description: '`attachment; filename="…"`, so a browser saves the CSV (D52) or the PDF (D56) as a file',
    schema: { type: 'string' },
  },
  Location: {
    description: 'The path of the claim filed: `/v1/claims/{claimId}`',
    schema: { type: 'string', maxLength: 2048 },
  },
  'Access-Control-Allow-Origin': {
    description: 'On the operations that need no authentication: any origin may read the answer from a browser',
    schema: { type: 'string', enum: ['*'] },
  },
  'Access-Control-Expose-Headers': {
    description: 'The headers of the answer a browser script may read',
    schema: { type: 'string', maxLength: 256 },
  },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same `Idempotency-Key`',
    schema: { type: 'string', enum: ['true'] },
  },
  'Api-Version': {
    description: 'The dated API version that served the request',
    schema: { type: 'string', enum: [...API_VERSIONS] },
  },
} as const;
export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

/** What the answers of a deprecated version carry besides (RFC 9745, RFC 8594). */
export const DEPRECATION_HEADERS = {
  Deprecation: {
    description: 'This version is deprecated: `@` and the Unix time it was deprecated at',
    schema: { type: 'string', pattern: '^@[0-9]+$', maxLength: 24 },
  },
  Sunset: {
    description: 'When this version stops being served, as an HTTP date',
    schema: { type: 'string', maxLength: 64 },
  },
  Link: {
    description: 'The changelog entry of this version, `rel="deprecation"`: what changed and how to upgrade',
    schema: { type: 'string', maxLength: 2048 },
  },
} as const;

/** The `Api-Version` request header of a versioned operation. */
function apiVersionParameter(version: ApiVersion): Record<string, unknown> {
  return {
    name: 'Api-Version',
    in: 'header',
    required: false,
    description: `The dated API version to answer in: ${API_VERSIONS.join(', ')}. Without it, the version the app is pinned to (its \`apiVersion\`), else the latest; an unknown version answers 400. This document describes ${version}.`,
    schema: { type: 'string', enum: [...API_VERSIONS] },
  };
}

/** The document's words on its version: which one, and for a deprecated one, until when. */
function versionText(version: ApiVersion): string[] {
  const life = VERSION_LIFECYCLE[version];
  const text = [
    `This document describes API version ${version}: send \`Api-Version: ${version}\` on calls with an app access token, or pin the app to it; every such answer names its version in \`Api-Version\`.`,
  ];
  if (life.deprecated && life.sunset) {
    text.push(
      `This version is deprecated and is served until ${life.sunset.slice(0, 10)}: its answers carry \`Deprecation\`, \`Sunset\` and a \`Link\` to the changelog at \`/docs/versions#${version}\`.`,
    );
  }
  return text;
}

/** Operations whose success answer names what it created in `Location`. */
const LOCATION_OPERATIONS = new Set(['claims.file', 'claims.fileOffline']);

/**
 * The headers an answer of `status` may carry. Every answer has a request id; every answer
 * given once the rate limiter has counted the request has the rate-limit headers (a 401 of a
 * bad login does, a 401 of a missing token does not; 413 and 415, answered while the body is
 * read, never do), 429 and 503 say
 * when to retry; conditional reads carry their ETag; a POST taking an `Idempotency-Key` may
 * be a replay, whatever its status; public operations allow any origin.
 */
function headersOf(status: number, key: string, route: AppRoute, version: ApiVersion): string[] {
  const headers: string[] = ['X-Request-Id'];
  // D44: every answer of a versioned route names its version (the refusal of an unknown one aside).
  if (isVersionedRoute(route)) {
    headers.push('Api-Version');
    if (VERSION_LIFECYCLE[version].deprecated) headers.push(...Object.keys(DEPRECATION_HEADERS));
  }
  // An upload's body is read after the caller's limit is counted (D56), so its 413 and 415 carry it too.
  const upload = 'contentType' in route && route.contentType === 'multipart/form-data';
  if ((status !== 413 && status !== 415) || upload) {
    headers.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
  }
  if (status === 429 || status === 503) headers.push('Retry-After');
  if (status === 200 && isRouteMeta(route.metadata) && route.metadata.body === 'csv')
    headers.push('Content-Disposition');
  if (status === 200 && isRouteMeta(route.metadata) && route.metadata.body === 'bytes')
    headers.push('Content-Disposition');
  const requestHeaders = isZodObject(route.headers) ? Object.keys(extractZodObjectShape(route.headers)) : [];
  if (requestHeaders.includes('if-none-match') && (status === 200 || status === 304)) headers.push('ETag');
  if (LOCATION_OPERATIONS.has(key) && status >= 200 && status < 300) headers.push('Location');
  if (requestHeaders.includes('idempotency-key')) headers.push('Idempotent-Replayed');
  // Public operations answer browsers on any origin, whatever the status (D29, D47).
  if (isRouteMeta(route.metadata) && route.metadata.auth === 'public') {
    headers.push('Access-Control-Allow-Origin', 'Access-Control-Expose-Headers');
  }
  return headers;
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
  return withIntegerFormat(schema);
}

/**
 * A schema as strict OpenAPI 3.0 reads it: exclusive bounds as flags (`openApi30`), a
 * nullable enum lists `null` among its values (a 3.0 validator checks `enum` first), and an
 * untyped schema, which accepts `null` already, does not say `nullable` (3.0 gives
 * `nullable` a meaning only beside `type`).
 */
function normalise(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(normalise);
  const out = openApi30(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v)]))) as Record<
    string,
    unknown
  >;
  withIntegerFormat(out);
  if (out.nullable === true) {
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (out.type === undefined && !out.oneOf && !out.anyOf && !out.allOf) delete out.nullable;
  }
  return out;
}

/**
 * An integer bounded on both sides says which size it is (D47): `int32` when its bounds fit
 * 32 bits, `int64` otherwise. The zod converter writes no format.
 */
function withIntegerFormat<T extends Record<string, unknown>>(schema: T): T {
  const { minimum, maximum } = schema;
  if (schema.type !== 'integer' || schema.format !== undefined) return schema;
  if (typeof minimum !== 'number' || typeof maximum !== 'number') return schema;
  (schema as Record<string, unknown>).format = minimum >= -(2 ** 31) && maximum <= 2 ** 31 - 1 ? 'int32' : 'int64';
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
