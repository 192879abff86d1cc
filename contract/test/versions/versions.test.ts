import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  API_VERSIONS,
  type ApiVersion,
  contract,
  contractFor,
  downAnswer,
  downError,
  isVersionedRoute,
  LATEST_API_VERSION,
  routeEntries,
  SCOPE_ALIASES,
  SCOPES,
  upRequest,
  VERSION_CHANGES,
  type VersionData,
  WEBHOOK_TOPICS,
  webhookBodySchema,
  webhookEnvelope,
  ZError,
} from '@protection-service/contract';
import { buildOpenApi } from '@protection-service/contract/openapi';
import type { AppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { arbitrary, seeded } from './arbitrary';

/**
 * The version changes (D44) as properties: `down` of any newest answer parses with the old
 * schema, `up` of any old request parses with the newest; and the answers and requests of
 * every released version are frozen, so that changing the newest contract without declaring
 * a version change fails here.
 */
const OLD: ApiVersion = '2025-01-01';
const SAMPLES = 40;
/** Fewer valid samples than this for a route and status, and the property would prove little. */
const FLOOR = 5;

/** What the older versions remember, in memory: what the server keeps in the database. */
function memoryData(): VersionData & { keys: Map<string, string> } {
  const keys = new Map<string, string>();
  return {
    keys,
    async contextVariantKeys(ids) {
      return new Map(ids.flatMap((id) => (keys.has(id) ? [[id, keys.get(id)!] as const] : [])));
    },
    async rememberContextVariantKey(id, key) {
      keys.set(id, key);
    },
  };
}

const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const responsesOf = (route: AppRoute) => route.responses as Record<number, z.ZodTypeAny>;
const latestRoutes = new Map(routeEntries(contract as never));

describe('version changes (D44)', () => {
  it('have unique ids, belong to an older version, and each changes something', () => {
    expect(new Set(VERSION_CHANGES.map((c) => c.id)).size).toBe(VERSION_CHANGES.length);
    for (const change of VERSION_CHANGES) {
      expect(API_VERSIONS.indexOf(change.version), change.id).toBeGreaterThan(0);
      const routes = [...contractFor(change.version).routes.values()];
      const touches = routes.some((r) => r.steps.some((s) => s.change === change));
      expect(
        touches || Boolean(change.addedRoutes) || Boolean(change.error) || Boolean(change.webhook),
        change.id,
      ).toBe(true);
    }
  });

  it('leave the latest contract as written, and touch only versioned routes, and the webhook bodies of the event log', () => {
    const latest = contractFor(LATEST_API_VERSION);
    for (const [key, route] of latestRoutes) expect(latest.routes.get(key)?.route, key).toBe(route);
    for (const version of API_VERSIONS) {
      for (const r of contractFor(version).routes.values()) {
        if (r.steps.length > 0 || r.added) expect(isVersionedRoute(r.route), r.key).toBe(true);
        if (isVersionedRoute(r.route)) continue;
        // An unversioned route is the newest's, but for the webhook bodies its answers hold
        // (the app's event log, D34): those are the version's.
        const newest = latestRoutes.get(r.key)!;
        if (r.route === newest) continue;
        expect({ ...r.route, responses: null }, r.key).toStrictEqual({ ...newest, responses: null });
        expect(['apps.listEvents', 'apps.redeliverEvent'], `${version} ${r.key}`).toContain(r.key);
      }
    }
  });

  it('down: every newest success answer, made old, parses with the old schema', async () => {
    const random = seeded(44);
    const data = memoryData();
    let checked = 0;
    for (const route of contractFor(OLD).routes.values()) {
      if (route.added || route.steps.length === 0) continue;
      const newest = latestRoutes.get(route.key)!;
      for (const [status, schema] of Object.entries(responsesOf(newest))) {
        if (Number(status) >= 300 || !(schema instanceof z.ZodType)) continue;
        let valid = 0;
        for (let i = 0; i < SAMPLES; i++) {
          const parsed = schema.safeParse(arbitrary(schema, random));
          if (!parsed.success) continue;
          valid++;
          const old = await downAnswer(route, { status: Number(status), body: json(parsed.data) }, data);
          const oldSchema = responsesOf(route.route)[old.status];
          expect(oldSchema, `${route.key} ${status} -> ${old.status}`).toBeDefined();
          const result = oldSchema!.safeParse(old.body);
          expect(result.success, `${route.key} ${status}: ${JSON.stringify(result.error?.issues)}`).toBe(true);
        }
        expect(valid, `${route.key} ${status}: valid samples`).toBeGreaterThanOrEqual(FLOOR);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(25);
  });

  it('up: every old request, made newest, parses with the newest schema', async () => {
    const random = seeded(2025);
    let checked = 0;
    for (const route of contractFor(OLD).routes.values()) {
      if (route.added || !route.steps.some((s) => s.step.up)) continue;
      const oldBody = (route.route as { body?: unknown }).body as z.ZodTypeAny;
      const newestBody = (latestRoutes.get(route.key) as { body?: unknown }).body as z.ZodTypeAny;
      let valid = 0;
      for (let i = 0; i < SAMPLES; i++) {
        const parsed = oldBody.safeParse(arbitrary(oldBody, random));
        if (!parsed.success) continue;
        valid++;
        const { request } = upRequest(route, { params: {}, query: {}, headers: {}, body: parsed.data });
        const result = newestBody.safeParse(request.body);
        expect(result.success, `${route.key}: ${JSON.stringify(result.error?.issues)}`).toBe(true);
      }
      expect(valid, `${route.key}: valid samples`).toBeGreaterThanOrEqual(FLOOR);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('claims filed from tracking read claimType null before 2027-01-15, in answers and claim/created (D54)', async () => {
    const created = {
      claimId: 'cl_1',
      storeId: 'st_1',
      sourceOrderId: 'o1',
      claimCategory: 'SHIPPING',
      claimType: 'LOST_IN_TRANSIT',
      claimState: 'NEW',
      items: [],
    };
    const event = { id: 'ev_1', topic: 'claim/created', livemode: true, createdAt: '2027-01-20T00:00:00.000Z' };
    expect(webhookEnvelope('2027-01-15', { ...event, body: created }).body).toEqual(created);
    for (const version of ['2026-12-01', '2025-01-01'] as const) {
      expect(webhookEnvelope(version, { ...event, body: created }).body).toEqual({ ...created, claimType: null });
      const returned = { ...created, claimType: 'RETURNED_TO_SENDER' };
      expect(webhookEnvelope(version, { ...event, body: returned }).body).toEqual(returned);
    }
    // Answers: the "down" check above parses every newest answer, made old, with the old
    // schema, whose claimType has no tracking claim types.
  });

  it("walks each version's document, requests and webhook bodies: no value a later version introduced (D44, D54)", () => {
    const introduced = laterValues();
    expect(introduced.get('2026-12-01')?.flatMap((n) => [...n.taken])).toEqual(['LOST_IN_TRANSIT', 'DELAYED']);
    for (const version of API_VERSIONS) {
      const narrowed = introduced.get(version) ?? [];
      /** The later values of an enum that is one a change narrowed (all its old values, and more). */
      const later = (values: string[]) =>
        narrowed.flatMap((n) => (n.kept.every((v) => values.includes(v)) ? values.filter((v) => n.taken.has(v)) : []));
      const doc = buildOpenApi({ version }) as unknown as OpenApiDoc;
      let versioned = 0;
      // Every operation: the unversioned ones too, whose answers may hold webhook bodies (the
      // app's event log, D34), which are the version's.
      for (const [where, operation] of operations(doc)) {
        if (operation.parameters?.some((p) => p.name === 'Api-Version')) versioned++;
        expect(enums(operation, doc.components.schemas).flatMap(later), `${version} ${where}`).toEqual([]);
      }
      expect(versioned).toBeGreaterThan(50);
      // Nor in any component the document names.
      expect(enums(doc.components.schemas, {}).flatMap(later), `${version} components`).toEqual([]);
      for (const topic of WEBHOOK_TOPICS) {
        expect(zodEnums(webhookBodySchema(version, topic)).flatMap(later), `${version} webhook ${topic}`).toEqual([]);
      }
    }
    // The walk finds them where they are: in the newest, which has them all.
    const newest = buildOpenApi({ version: LATEST_API_VERSION }) as unknown as OpenApiDoc;
    const [narrowing] = introduced.get('2026-12-01')!;
    const hits = (values: string[]) => narrowing!.kept.every((v) => values.includes(v)) && values.includes('DELAYED');
    expect(enums(newest.paths['/v1/claims']!.get!, newest.components.schemas).some(hits)).toBe(true);
    expect(enums(newest.paths['/v1/claims/export']!.get!, newest.components.schemas).some(hits)).toBe(true);
    expect(zodEnums(webhookBodySchema(LATEST_API_VERSION, 'claim/created')).some(hits)).toBe(true);
    expect(enums(newest.paths['/v1/apps/{clientId}/events']!.get!, newest.components.schemas).some(hits)).toBe(true);
  });

  it('validates each version by its own values: an older list and export refuse a later claim type filter (D54)', () => {
    for (const key of ['claims.list', 'claims.export']) {
      for (const version of API_VERSIONS) {
        const query = contractFor(version).routes.get(key)!.route.query as z.ZodTypeAny;
        const later = version !== LATEST_API_VERSION;
        expect(query.safeParse({ claimType: 'LOST_IN_TRANSIT' }).success, `${version} ${key}`).toBe(!later);
        expect(query.safeParse({ claimType: 'MULTIPLE' }).success, `${version} ${key}`).toBe(true);
      }
    }
    const created = {
      claimId: 'c',
      storeId: 's',
      sourceOrderId: 'o',
      claimCategory: 'SHIPPING',
      claimState: 'NEW',
      items: [],
    };
    for (const version of API_VERSIONS) {
      const schema = webhookBodySchema(version, 'claim/created');
      expect(schema.safeParse({ ...created, claimType: 'DELAYED' }).success, version).toBe(
        version === LATEST_API_VERSION,
      );
      expect(schema.safeParse({ ...created, claimType: null }).success, version).toBe(true);
    }
  });

  it('errors: a 403 made old names earlier scope names and keeps the D2 shape', () => {
    const earlier = new Set(Object.values(SCOPE_ALIASES).filter(Boolean));
    for (const scope of SCOPES) {
      const body = {
        statusCode: 403,
        error: 'Forbidden',
        message: `insufficient scope: requires ${scope} or store:read`,
      };
      const old = downError(OLD, { status: 403, body });
      expect(ZError.parse(old.body)).toBeTruthy();
      const message = (old.body as { message: string }).message;
      if (earlier.has(scope)) expect(message).not.toContain(scope);
      expect(message).toContain('read_store');
      expect(downError(LATEST_API_VERSION, { status: 403, body }).body).toEqual(body);
    }
  });

  it('remember a 2025-01-01 context key through the newest answer, and read others as "default"', async () => {
    const data = memoryData();
    const create = contractFor(OLD).routes.get('settings.createContext')!;
    const { request, states } = upRequest(create, {
      params: {},
      query: {},
      headers: {},
      body: { name: 'A', variantKey: 'test-a' },
    });
    expect(request.body).toEqual({ name: 'A' });
    const newest = {
      status: 201,
      body: {
        data: { id: 'ctx_1', applicationId: 'app', name: 'A', createdAt: '2026-12-01T00:00:00.000Z', updatedAt: null },
      },
    };
    const old = await downAnswer(create, newest, data, states);
    expect(old).toEqual({ status: 201, body: { ...newest.body.data, variantKey: 'test-a' } });
    expect(Object.keys(old.body as object)).toEqual([
      'id',
      'applicationId',
      'name',
      'createdAt',
      'updatedAt',
      'variantKey',
    ]);
    const list = contractFor(OLD).routes.get('settings.listContexts')!;
    const other = { ...newest.body.data, id: 'ctx_2' };
    const listed = await downAnswer(list, { status: 200, body: { data: [newest.body.data, other] } }, data);
    expect((listed.body as { variantKey: string }[]).map((c) => c.variantKey)).toEqual(['test-a', 'default']);
  });
});

/* ------------------------------------------------------------------ frozen answers of released versions */

const SHAPES_FILE = path.resolve(import.meta.dirname, 'answer-shapes.json');

/** A schema without its words: what a client's code depends on, not the documentation. */
function shapeOf(value: unknown, components: Record<string, unknown>, seen: string[] = []): unknown {
  if (Array.isArray(value)) return value.map((v) => shapeOf(v, components, seen));
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as { $ref?: string }).$ref;
  if (ref) {
    const name = ref.split('/').pop()!;
    if (seen.includes(name)) return { $recursive: name };
    return shapeOf(components[name], components, [...seen, name]);
  }
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !['description', 'example', 'examples', 'summary'].includes(k))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, shapeOf(v, components, seen)]),
  );
}

/** Per version, per versioned operation: a digest of its request body and its answers (statuses, bodies). */
function answerShapes(): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const version of API_VERSIONS) {
    const doc = buildOpenApi({ version }) as { paths: Record<string, Record<string, any>>; components: any };
    const shapes: Record<string, string> = {};
    for (const [p, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (op['x-auth'] !== 'token') continue;
        const shape = {
          request: shapeOf(op.requestBody?.content?.['application/json']?.schema ?? null, doc.components.schemas),
          responses: Object.fromEntries(
            Object.entries(op.responses as Record<string, any>).map(([status, r]) => [
              status,
              shapeOf(r.content?.['application/json']?.schema ?? null, doc.components.schemas),
            ]),
          ),
        };
        shapes[`${method.toUpperCase()} ${p}`] = createHash('sha256')
          .update(JSON.stringify(shape))
          .digest('hex')
          .slice(0, 16);
      }
    }
    out[version] = Object.fromEntries(Object.entries(shapes).sort(([a], [b]) => a.localeCompare(b)));
  }
  return out;
}

describe('released versions are frozen (D44)', () => {
  // Hashing every route's schemas of every version takes seconds, more on a machine busy with
  // the rest of the run: past the contract project's 5 s default.
  it('answer and accept what they did when released: a change of the newest needs a version change', {
    timeout: 60_000,
  }, () => {
    const fresh = answerShapes();
    if (process.env.UPDATE_ANSWER_SHAPES === '1') writeFileSync(SHAPES_FILE, `${JSON.stringify(fresh, null, 2)}\n`);
    const frozen = JSON.parse(readFileSync(SHAPES_FILE, 'utf8')) as typeof fresh;
    for (const version of API_VERSIONS) {
      const changed = Object.keys({ ...fresh[version], ...frozen[version] }).filter(
        (op) => fresh[version]?.[op] !== frozen[version]?.[op],
      );
      expect(
        changed,
        `the ${version} answers or requests of these operations changed. A breaking change of the latest ` +
          'needs a new dated version whose version change renders the old shape (contract/src/versions); ' +
          'an additive one is accepted by regenerating contract/test/versions/answer-shapes.json with UPDATE_ANSWER_SHAPES=1',
      ).toEqual([]);
    }
  });

  it('is what the check reads: a changed answer of the newest changes its digest', () => {
    const doc = buildOpenApi() as { components: { schemas: Record<string, unknown> } };
    const before = JSON.stringify(shapeOf({ $ref: '#/components/schemas/Quote' }, doc.components.schemas));
    const schemas = {
      ...doc.components.schemas,
      Quote: { type: 'object', properties: { premium: { type: 'string' } } },
    };
    expect(JSON.stringify(shapeOf({ $ref: '#/components/schemas/Quote' }, schemas))).not.toBe(before);
  });
});

/* ------------------------------------------------ values a later version introduced (D44) */

/** An enum a version change narrowed: the values the older version has, and those it lacks. */
interface Narrowing {
  kept: string[];
  taken: Set<string>;
}

/** For each version, the enums some later version widened: what each change's `narrows` takes out. */
function laterValues(): Map<ApiVersion, Narrowing[]> {
  const out = new Map<ApiVersion, Narrowing[]>();
  for (const change of VERSION_CHANGES) {
    for (const [newer, older] of change.narrows ?? []) {
      const kept = zodEnums(older).flat();
      const taken = new Set(
        zodEnums(newer)
          .flat()
          .filter((v) => !kept.includes(v)),
      );
      for (const version of API_VERSIONS.slice(API_VERSIONS.indexOf(change.version))) {
        out.set(version, [...(out.get(version) ?? []), { kept, taken }]);
      }
    }
  }
  return out;
}

/** The values of each enum anywhere in a zod schema. */
function zodEnums(schema: unknown, seen = new Set<unknown>()): string[][] {
  if (!(schema instanceof z.ZodType) || seen.has(schema)) return [];
  seen.add(schema);
  if (schema instanceof z.ZodEnum) return [[...(schema.options as string[])]];
  const def = schema._def as Record<string, unknown>;
  const inner = [def.innerType, def.schema, def.type, def.in, def.out, def.left, def.right, def.valueType];
  if (schema instanceof z.ZodObject) inner.push(...Object.values(schema.shape as Record<string, unknown>));
  if (Array.isArray(def.options)) inner.push(...(def.options as unknown[]));
  if (schema instanceof z.ZodLazy) inner.push(schema.schema);
  return inner.flatMap((s) => zodEnums(s, seen));
}

interface OpenApiOperation {
  parameters?: { name: string }[];
}
interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown> };
}

function operations(doc: OpenApiDoc): [string, OpenApiOperation][] {
  return Object.entries(doc.paths).flatMap(([p, item]) =>
    Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${p}`, op] as [string, OpenApiOperation]),
  );
}

/** The values of each enum anywhere in a piece of a document, `$ref`s followed (each once). */
function enums(node: unknown, schemas: Record<string, unknown>, seen = new Set<string>()): string[][] {
  if (Array.isArray(node)) return node.flatMap((n) => enums(n, schemas, seen));
  if (typeof node !== 'object' || node === null) return [];
  const out: string[][] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'enum' && Array.isArray(value)) out.push(value.filter((v): v is string => typeof v === 'string'));
    else if (key === '$ref' && typeof value === 'string') {
      const name = value.replace('#/components/schemas/', '');
      if (!seen.has(name)) {
        seen.add(name);
        out.push(...enums(schemas[name], schemas, seen));
      }
    } else out.push(...enums(value, schemas, seen));
  }
  return out;
}
