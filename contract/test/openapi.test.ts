import { readFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { openapiSchemaToJsonSchema } from '@openapi-contrib/openapi-schema-to-json-schema';
import type { AppRoute } from '@ts-rest/core';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OPENAPI_FILE, renderOpenApi } from '../../scripts/openapi';
import { API_VERSIONS, contract, contractFor } from '../src/index';
import { buildOpenApi, operationIdOf } from '../src/openapi';
import { SCOPES } from '../src/scopes';

/** routes.tsv is the product's list of every route; read it at test time, never copy it. */
const TSV = path.resolve(import.meta.dirname, '../../docs/routes.tsv');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; schema?: Record<string, unknown> }[];
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
  'x-auth': string;
}

interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { flows?: Record<string, { scopes: Record<string, string> }> }>;
    schemas: Record<string, Record<string, any>>;
  };
}

const doc = buildOpenApi() as unknown as Doc;
const operations = Object.entries(doc.paths).flatMap(([p, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, op]) => ({ id: `${method.toUpperCase()} ${p.replace(/\{\w+\}/g, '{}')}`, op })),
);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe('openapi.json', () => {
  it('is what the contract generates today', () => {
    const committed = readFileSync(OPENAPI_FILE, 'utf8');
    expect(committed === renderOpenApi(), 'openapi.json is out of date: run `pnpm openapi` and commit it').toBe(true);
  });

  it('is a valid OpenAPI document for a third-party validator', async () => {
    // The validator dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });
});

/** `GET /v1/claims/{claimId}` -> its routes.tsv row: auth kind, scopes cell and operation. */
function readRows(): Map<string, { auth: string; scopes: string; operation: string }> {
  const [header, ...lines] = readFileSync(TSV, 'utf8').trim().split('\n');
  const cols = header!.split('\t');
  return new Map(
    lines.map((line) => {
      const row = Object.fromEntries(cols.map((c, i) => [c, line.split('\t')[i] ?? ''])) as Record<string, string>;
      // Templates that differ only in their parameters' names are one path in the document.
      const key = `${row.method} ${row.path!.replace(/:(\w+)/g, '{}')}`;
      return [key, { auth: row.auth!, scopes: row.scopes!, operation: row.operation! }];
    }),
  );
}

/** The scopes a routes.tsv cell names, `<type>` expanded, parenthesised conditions left out. */
function scopesOfCell(cell: string): string[] {
  const names = cell
    .replace(/\([^)]*\)/g, '')
    .split(/[|+\s]+/)
    .filter((s) => s && s !== '-');
  // D16 group rule: a per-type read is also satisfied by that type's update scope.
  const accepted = names.flatMap((name) =>
    name.includes('<type>') && name.endsWith(':read') ? [name, name.replace(/:read$/, ':update')] : [name],
  );
  return accepted.flatMap((name) => {
    const pattern = new RegExp(`^${name.replace('<type>', '[a-z-]+')}$`);
    return SCOPES.filter((s) => pattern.test(s));
  });
}

describe('the OpenAPI document', () => {
  const rows = readRows();

  it('has one operation per row of routes.tsv, with its auth kind and an operationId derived from its operation', () => {
    expect(operations).toHaveLength(rows.size);
    for (const { id, op } of operations) {
      expect(op['x-auth'], id).toBe(rows.get(id)?.auth);
      expect(op.operationId, id).toBe(operationIdOf(rows.get(id)!.operation));
    }
  });

  it('names operations in camelCase, verb first', () => {
    const verbs =
      /^(request|revoke|verify|preview|approve|get|log|refresh|create|rotate|list|redeliver|test|mint|uninstall|upsert|remove|cancel|file|post|deny|transition|add|update|delete|advance|record|flush|reset|change|invite|export|receive|read|evaluate|upload)[A-Z]/;
    for (const { id, op } of operations) expect(op.operationId, id).toMatch(verbs);
    expect(operationIdOf('orders.upsert')).toBe('upsertOrder');
    expect(operationIdOf('claims.list')).toBe('listClaims');
  });

  it('lists the scopes of routes.tsv in the security of every token route', () => {
    for (const { id, op } of operations) {
      if (op['x-auth'] !== 'token') continue;
      const listed = new Set(op.security!.flatMap((requirement) => requirement.oauth2 ?? []));
      expect([...listed].sort(), id).toEqual([...new Set(scopesOfCell(rows.get(id)!.scopes))].sort());
    }
  });

  it('gives every operation a unique operationId, a summary and a description', () => {
    const ids = operations.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(operations.length);
    for (const { id, op } of operations) {
      expect(op.operationId, id).toMatch(/\S/);
      expect(op.summary, id).toMatch(/\S/);
      expect(op.description, id).toMatch(/\S/);
    }
  });

  it('lists every scope in the oauth2 scheme, and token routes only use those scopes', () => {
    const flows = Object.values(doc.components.securitySchemes.oauth2!.flows!);
    expect(flows.length).toBeGreaterThan(0);
    for (const flow of flows) expect(Object.keys(flow.scopes).sort()).toEqual([...SCOPES].sort());
    for (const { id, op } of operations) {
      if (op['x-auth'] === 'public') {
        expect(op.security, id).toEqual([]);
      } else if (op['x-auth'] === 'token') {
        expect(op.security?.length, id).toBeGreaterThan(0);
        for (const requirement of op.security!) {
          expect(Object.keys(requirement), id).toEqual(['oauth2']);
          // A token route without a scope (routes.tsv `-`, D45) names the scheme with none.
          if (rows.get(id)!.scopes !== '-') expect(requirement.oauth2!.length, id).toBeGreaterThan(0);
          for (const scope of requirement.oauth2!) expect(SCOPES, `${id}: ${scope}`).toContain(scope);
        }
      } else {
        expect(op.security?.length, id).toBeGreaterThan(0);
        for (const requirement of op.security!) {
          for (const scheme of Object.keys(requirement))
            expect(doc.components.securitySchemes, id).toHaveProperty(scheme);
        }
      }
    }
  });

  it('answers every error status with the D2 error schema', () => {
    const error = doc.components.schemas.Error!;
    expect(error.required).toEqual(['statusCode', 'message', 'error']);
    expect(Object.keys(error.properties)).toEqual(['statusCode', 'message', 'error', 'issues']);
    const oauthError = doc.components.schemas.OAuthError!;
    expect(oauthError.required).toEqual(expect.arrayContaining(['statusCode', 'message', 'error']));
    let errorResponses = 0;
    for (const { id, op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        errorResponses++;
        const schema = response.content?.['application/json']?.schema;
        expect([ref('Error'), ref('OAuthError')], `${id} ${status}`).toContainEqual(schema);
      }
    }
    expect(errorResponses).toBeGreaterThan(operations.length);
  });

  it('describes every query parameter with a schema, integers with their bounds and size (D47)', () => {
    for (const { id, op } of operations) {
      for (const parameter of op.parameters ?? []) {
        expect(Object.keys(parameter.schema ?? {}), `${id} ${parameter.in} ${parameter.name}`).not.toHaveLength(0);
      }
    }
    const claims = doc.paths['/v1/claims']!.get!.parameters!;
    for (const name of ['first', 'last']) {
      expect(claims.find((p) => p.name === name)?.schema).toEqual({
        type: 'integer',
        format: 'int32',
        minimum: 1,
        maximum: 250,
      });
    }
  });
});

/**
 * zod's string formats and the OpenAPI `format` each is published as: a generated client or
 * validator knows a calendar day, a timestamp, an address or a URL from the document alone.
 */
const FORMATS: Record<string, string> = {
  date: 'date',
  datetime: 'date-time',
  email: 'email',
  url: 'uri',
  uuid: 'uuid',
};

describe('the string formats of every document', () => {
  it.each(API_VERSIONS)('publishes every zod string format of %s as its OpenAPI format', (version) => {
    const versionDoc = buildOpenApi({ version }) as unknown as Doc;
    const seen = new Map<string, number>();
    const byId = new Map(
      Object.values(versionDoc.paths).flatMap((item) => Object.values(item).map((op) => [op.operationId, op] as const)),
    );
    for (const { key, route } of contractFor(version).routes.values()) {
      const op = byId.get(operationIdOf(key));
      if (!op) throw new Error(`${version} ${key}: no operation ${operationIdOf(key)}`);
      const check = (zod: unknown, json: unknown, where: string) =>
        formatsAgree(zod, json, versionDoc.components.schemas, `${version} ${key} ${where}`, seen);
      const query = zodShape((route as { query?: unknown }).query);
      for (const parameter of op.parameters ?? []) {
        if (parameter.in === 'query' && query?.[parameter.name])
          check(query[parameter.name], parameter.schema, parameter.name);
      }
      const body = (op as { requestBody?: { content: Record<string, { schema: unknown }> } }).requestBody;
      if ('body' in route && body?.content['application/json'])
        check(route.body, body.content['application/json'].schema, 'body');
      for (const [status, response] of Object.entries(route.responses as Record<string, unknown>)) {
        const json = op.responses[status]?.content?.['application/json']?.schema;
        if (json) check(response, json, status);
      }
    }
    // Each format the contract uses was met (the analytics summary's days among them).
    for (const kind of ['date', 'datetime', 'email', 'url'])
      expect(seen.get(kind), `${version} ${kind}`).toBeGreaterThan(0);
    const summary = versionDoc.paths['/v1/analytics/summary']!.get!.parameters!;
    for (const name of ['from', 'to']) expect(summary.find((p) => p.name === name)?.schema?.format).toBe('date');
    // Timestamps clients send (ZTimestampInput: a refined date-time) keep their format too.
    const claims = versionDoc.paths['/v1/claims']!.get!.parameters!;
    for (const name of ['createdAtMin', 'createdAtMax', 'updatedAtMin'])
      expect(claims.find((p) => p.name === name)?.schema?.format, `${version} ${name}`).toBe('date-time');
    const event = versionDoc.components.schemas.TrackingEventInput as {
      properties: Record<string, { format?: string }>;
    };
    expect(event.properties.occurredAt?.format).toBe('date-time');
  });
});

/** The object shape of a query schema, through the wrappers zod puts around objects. */
function zodShape(schema: unknown): Record<string, unknown> | undefined {
  const inner = unwrapZod(schema);
  return inner instanceof z.ZodObject ? (inner.shape as Record<string, unknown>) : undefined;
}

function unwrapZod(schema: unknown): unknown {
  let s = schema;
  for (;;) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s._def.innerType;
    else if (s instanceof z.ZodEffects) s = s._def.schema;
    else if (s instanceof z.ZodLazy) s = s.schema;
    else if (s instanceof z.ZodBranded) s = s._def.type;
    else if (s instanceof z.ZodPipeline) s = s._def.in;
    else return s;
  }
}

/** A document schema with its `$ref`s and one-member `allOf`s (a described reference) followed. */
function resolveJson(json: unknown, schemas: Record<string, unknown>): Record<string, any> | undefined {
  let j = json as Record<string, any> | undefined;
  for (let hops = 0; j && hops < 20; hops++) {
    if (typeof j.$ref === 'string') j = schemas[j.$ref.replace('#/components/schemas/', '')] as Record<string, any>;
    else if (Array.isArray(j.allOf) && j.allOf.length === 1) j = j.allOf[0];
    else return j;
  }
  return j;
}

/** Walks a zod schema and the document's schema of it side by side: each formatted string has its format. */
function formatsAgree(
  zod: unknown,
  json: unknown,
  schemas: Record<string, unknown>,
  where: string,
  seen: Map<string, number>,
): void {
  const s = unwrapZod(zod);
  const j = resolveJson(json, schemas);
  if (!j) return;
  if (s instanceof z.ZodString) {
    const kind = s._def.checks.map((c) => c.kind).find((k) => k in FORMATS);
    if (kind) {
      expect(j.format, `${where}: a zod ${kind}`).toBe(FORMATS[kind]);
      seen.set(kind, (seen.get(kind) ?? 0) + 1);
    }
  } else if (s instanceof z.ZodObject) {
    for (const [name, inner] of Object.entries(s.shape as Record<string, unknown>)) {
      if (j.properties?.[name]) formatsAgree(inner, j.properties[name], schemas, `${where}.${name}`, seen);
    }
  } else if (s instanceof z.ZodArray) {
    formatsAgree(s._def.type, j.items, schemas, `${where}[]`, seen);
  } else if (s instanceof z.ZodRecord) {
    formatsAgree(s._def.valueType, j.additionalProperties, schemas, `${where}{}`, seen);
  } else if (s instanceof z.ZodUnion || s instanceof z.ZodDiscriminatedUnion) {
    const options = s.options as unknown[];
    const alternatives = (j.oneOf ?? j.anyOf) as unknown[] | undefined;
    if (alternatives?.length === options.length) {
      for (const [i, o] of options.entries()) formatsAgree(o, alternatives[i], schemas, `${where}|${i}`, seen);
    }
  } else if (s instanceof z.ZodIntersection && Array.isArray(j.allOf)) {
    formatsAgree(s._def.left, j.allOf[0], schemas, where, seen);
    formatsAgree(s._def.right, j.allOf[1], schemas, where, seen);
  }
}

describe('the examples of the OpenAPI document', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const ROOT = 'https://protection-service.invalid/openapi.json';
  const jsonSchema = (schema: unknown) => {
    const { $schema: _, ...converted } = openapiSchemaToJsonSchema(schema as object, { cloneSchema: true }) as Record<
      string,
      unknown
    >;
    return converted;
  };
  ajv.addSchema(
    {
      components: {
        schemas: Object.fromEntries(Object.entries(doc.components.schemas).map(([n, s]) => [n, jsonSchema(s)])),
      },
    },
    ROOT,
  );
  const validate = (schema: unknown, value: unknown) => {
    const check = ajv.compile(
      JSON.parse(JSON.stringify(jsonSchema(schema)).replaceAll('"#/components/', `"${ROOT}#/components/`)),
    );
    return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  };
  const routes = new Map(
    Object.entries(contract).flatMap(([group, routesOf]) =>
      Object.entries(routesOf as Record<string, AppRoute>).map(([name, route]) => [
        operationIdOf(`${group}.${name}`),
        route,
      ]),
    ),
  );

  it('has an example on every request body and success answer, valid against its schema', () => {
    let examples = 0;
    for (const { id, op } of operations) {
      const media = [
        ['request', (op as any).requestBody?.content],
        ...Object.entries(op.responses)
          .filter(([status]) => status.startsWith('2'))
          .map(([status, r]) => [status, r.content]),
      ] as [string, Record<string, { schema?: unknown; example?: unknown }> | undefined][];
      for (const [what, content] of media) {
        for (const [type, m] of Object.entries(content ?? {})) {
          if (!m.schema) continue;
          expect(m.example, `${id} ${what} ${type}`).toBeDefined();
          expect(validate(m.schema, m.example), `${id} ${what} ${type}`).toEqual([]);
          examples++;
        }
      }
    }
    expect(examples).toBeGreaterThan(80);
  });

  it('gives request examples the server accepts', () => {
    for (const { id, op } of operations) {
      const example = (op as any).requestBody?.content?.['application/json']?.example;
      if (example === undefined) continue;
      const body = (routes.get(op.operationId!) as { body?: unknown } | undefined)?.body;
      expect(body, id).toBeDefined();
      const parsed = (body as z.ZodTypeAny).safeParse(example);
      expect(parsed.success ? [] : parsed.error.issues, id).toEqual([]);
    }
  });
});

describe('the code samples of the OpenAPI document (D47)', () => {
  const router = contract as unknown as Record<string, Record<string, AppRoute>>;

  it('gives every operation a curl command and the SDK call of its route, filled in with its example', () => {
    for (const { id, op } of operations) {
      const samples = (op as any)['x-codeSamples'] as { lang: string; label: string; source: string }[];
      expect(
        samples?.map((s) => s.label),
        id,
      ).toEqual(['curl', 'TypeScript SDK']);
      const [curl, sdk] = samples;
      const [method, template] = id.split(' ');
      // The curl command's method and path (parameters filled in) are the operation's.
      const url = /"\$BASE_URL([^"?]+)/.exec(curl!.source)?.[1];
      expect(url?.replace(/\/[^/]+/g, '/x'), id).toBe(template!.replace(/\/[^/]+/g, '/x'));
      expect(curl!.source.startsWith(method === 'GET' ? 'curl "' : `curl -X ${method} "`), id).toBe(true);
      // The SDK's method is the contract's router key of the route: `client.<group>.<name>(`.
      const call = /await client\.(\w+)\.(\w+)\(/.exec(sdk!.source);
      expect(call, id).not.toBeNull();
      const [, group, name] = call!;
      expect(operationIdOf(`${group}.${name}`), id).toBe(op.operationId);
      expect(router[group!]?.[name!]?.method, id).toBe(method);
      if ((op as any).requestBody) expect(sdk!.source, id).toContain('body: {');
    }
  });
});
