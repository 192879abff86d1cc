import type { AppRoute } from '@ts-rest/core';
import { z } from 'zod';
import { isRouteMeta, type RouteMeta } from '../meta';
import type { ApiVersion } from './list';

/**
 * One breaking change between a dated version and the version after it (D44), as a unit:
 * what it is called, what it changed and why, how to upgrade, which routes it touches (with
 * their old schemas, derived from the contract's own), how an old request becomes a newer
 * one (`up`) and how a newer answer becomes the old one (`down`). Handlers and the domain
 * only ever see the newest shapes; the changes do all the translating, at the edge.
 */
export interface VersionChange {
  /** A stable slug, the anchor of the changelog entry. */
  id: string;
  /** The version that still behaves the old way: the change sits between it and its successor. */
  version: ApiVersion;
  title: string;
  /** What is different in `version`, in a sentence or two. */
  description: string;
  /** Why the newer version changed it. */
  why: string;
  /** What a client of `version` does to move to the successor. */
  upgrade: string;
  /**
   * The route's old form, for each route the change touches (`undefined`: untouched). Called
   * with every route of the contract as the earlier changes of the same version left it.
   */
  route?(key: string, route: AppRoute): RouteChange | undefined;
  /** Routes that exist only in the older version, by contract key (`group.name`). */
  addedRoutes?: Record<string, AddedRoute>;
  /** A webhook body of `topic` as the older version renders it (D44: bodies follow the receiver's pin). */
  webhook?(topic: string, body: unknown): unknown;
  /**
   * Schemas the older version knows in a narrower form, as `[newer, older]` pairs: swapped (by
   * identity) wherever the newer one occurs in a versioned route's request (query and body) and
   * in the webhook bodies, so that the older version's document names only its own values and
   * its validation refuses the others with 400. Answers stay the `route`'s business: their
   * values need rewriting, not only their schemas.
   */
  narrows?: readonly (readonly [newer: z.ZodTypeAny, older: z.ZodTypeAny])[];
  /** A D2 error answer of a versioned route, made old (messages only: errors keep their shape). */
  error?(answer: Answer): Answer;
}

/** How one route differs in the older version. */
export interface RouteChange {
  /** Metadata that reads differently in the older version (`body: 'plain'` for an unwrapped answer). */
  metadata?: Partial<RouteMeta>;
  /** The route's description as the older version's document words it. */
  description?(newer: string): string;
  /** The old request body (what the older version's clients send). */
  body?: z.ZodTypeAny;
  /** The old query (what the older version's clients may filter by). */
  query?: z.ZodTypeAny;
  /** The old answers, by status; `null` removes a status the newer version answers. */
  responses?: Record<number, z.ZodTypeAny | null>;
  /** An old (already validated) request made into the newer version's; `state` carries what `afterNewer` needs. */
  up?(request: RequestParts, state: Record<string, unknown>): RequestParts;
  /** A newer success answer made into the old one. */
  down?(answer: Answer, data: VersionData): Answer | Promise<Answer>;
  /**
   * What the older version remembers that the newer one has no field for (data versioning):
   * run once the newer version has answered, with its answer and `up`'s state.
   */
  afterNewer?(answer: Answer, state: Record<string, unknown>, data: VersionData): Promise<void>;
}

/** A route of the older version only: its contract route, and the answer it always gives. */
export interface AddedRoute {
  route: AppRoute;
  /** The route's whole behaviour once the caller is authenticated: a D2 error. */
  refuse: { status: 410; message: string };
}

export interface RequestParts {
  params: Record<string, unknown>;
  query: unknown;
  body: unknown;
  headers: Record<string, unknown>;
}

export interface Answer {
  status: number;
  body: unknown;
}

/**
 * What the older versions remember that the newest has no place for, kept by the server
 * (never by the domain): the `variantKey` a 2025-01-01 client gave its partner context.
 */
export interface VersionData {
  contextVariantKeys(contextIds: readonly string[]): Promise<Map<string, string>>;
  rememberContextVariantKey(contextId: string, variantKey: string): Promise<void>;
}

/** `schema` with each of `pairs`' newer schemas swapped for its older form (see `VersionChange.narrows`). */
export function narrowSchema(schema: z.ZodTypeAny, pairs: VersionChange['narrows']): z.ZodTypeAny {
  let out = schema;
  for (const [newer, older] of pairs ?? []) out = replaceSchema(out, newer, older);
  return out;
}

/** A versioned route's request in the older version of `change`, for its `narrows` (undefined: untouched). */
export function narrowedRequest(change: VersionChange, route: AppRoute): RouteChange | undefined {
  if (!change.narrows || !isVersionedRoute(route)) return undefined;
  const step: RouteChange = {};
  const query = (route as { query?: unknown }).query;
  const body = (route as { body?: unknown }).body;
  if (query instanceof z.ZodType) {
    const narrowed = narrowSchema(query, change.narrows);
    if (narrowed !== query) step.query = narrowed;
  }
  if (body instanceof z.ZodType) {
    const narrowed = narrowSchema(body, change.narrows);
    if (narrowed !== body) step.body = narrowed;
  }
  return Object.keys(step).length > 0 ? step : undefined;
}

/** `group.name` of every route of a contract. */
export function routeEntries(router: Record<string, Record<string, AppRoute>>): [string, AppRoute][] {
  return Object.entries(router).flatMap(([group, routes]) =>
    Object.entries(routes).map(([name, route]) => [`${group}.${name}`, route] as [string, AppRoute]),
  );
}

/** Only routes called with an app access token are versioned (D44). */
export function isVersionedRoute(route: AppRoute): boolean {
  return isRouteMeta(route.metadata) && route.metadata.auth === 'token';
}

/* ------------------------------------------------------------ schemas: find and replace by identity */

/** Whether `target` (by identity) occurs in `schema`. */
export function containsSchema(schema: unknown, target: z.ZodTypeAny): boolean {
  return replaceSchema(schema as z.ZodTypeAny, target, z.never()) !== schema;
}

/**
 * `schema` with every occurrence of `target` (by identity) replaced by `replacement`; the very
 * same object when `target` does not occur. Covers the schema kinds the contract's answers are
 * built from (objects, arrays, nullable, optional, defaults, refinements, unions).
 */
export function replaceSchema(schema: z.ZodTypeAny, target: z.ZodTypeAny, replacement: z.ZodTypeAny): z.ZodTypeAny {
  if (schema === target) return replacement;
  if (!(schema instanceof z.ZodType)) return schema;
  const swap = (s: z.ZodTypeAny) => replaceSchema(s, target, replacement);
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, z.ZodTypeAny>;
    let changed = false;
    const next: Record<string, z.ZodTypeAny> = {};
    for (const [k, v] of Object.entries(shape)) {
      next[k] = swap(v);
      changed ||= next[k] !== v;
    }
    return changed ? new z.ZodObject({ ...schema._def, shape: () => next }) : schema;
  }
  if (schema instanceof z.ZodArray) {
    const inner = swap(schema._def.type);
    return inner === schema._def.type ? schema : new z.ZodArray({ ...schema._def, type: inner });
  }
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) {
    const def = schema._def as { innerType: z.ZodTypeAny };
    const inner = swap(def.innerType);
    if (inner === def.innerType) return schema;
    const Kind = schema.constructor as new (d: unknown) => z.ZodTypeAny;
    return new Kind({ ...schema._def, innerType: inner });
  }
  if (schema instanceof z.ZodEffects) {
    const inner = swap(schema._def.schema);
    return inner === schema._def.schema ? schema : new z.ZodEffects({ ...schema._def, schema: inner });
  }
  if (schema instanceof z.ZodUnion) {
    const options = (schema._def.options as z.ZodTypeAny[]).map(swap);
    return options.every((o, i) => o === schema._def.options[i])
      ? schema
      : new z.ZodUnion({ ...schema._def, options: options as never });
  }
  if (schema instanceof z.ZodDiscriminatedUnion) {
    const before = schema.options as z.ZodTypeAny[];
    const options = before.map(swap);
    if (options.every((o, i) => o === before[i])) return schema;
    // The options by discriminator value, made again from the new options.
    const rebuilt = z.discriminatedUnion(schema.discriminator, options as never);
    return new z.ZodDiscriminatedUnion({ ...schema._def, options: rebuilt.options, optionsMap: rebuilt.optionsMap });
  }
  return schema;
}

/**
 * The values in `value` that sit where `target` (by identity) sits in `schema`, for a change to
 * rewrite in place (on a copy of the answer). Objects, arrays, nullable and optional parts are
 * followed; `null` and absent values are skipped.
 */
export function valuesAt(schema: z.ZodTypeAny, value: unknown, target: z.ZodTypeAny): unknown[] {
  const out: unknown[] = [];
  const walk = (s: z.ZodTypeAny, v: unknown): void => {
    if (v === null || v === undefined) return;
    if (s === target) {
      out.push(v);
      return;
    }
    if (s instanceof z.ZodObject && typeof v === 'object') {
      for (const [k, inner] of Object.entries(s.shape as Record<string, z.ZodTypeAny>)) {
        walk(inner, (v as Record<string, unknown>)[k]);
      }
    } else if (s instanceof z.ZodArray && Array.isArray(v)) {
      for (const item of v) walk(s._def.type, item);
    } else if (s instanceof z.ZodNullable || s instanceof z.ZodOptional || s instanceof z.ZodDefault) {
      walk((s._def as { innerType: z.ZodTypeAny }).innerType, v);
    } else if (s instanceof z.ZodEffects) {
      walk(s._def.schema, v);
    }
  };
  walk(schema, value);
  return out;
}

/** A JSON value's deep copy, so that a change rewrites its own copy, never the handler's object. */
export function copyJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/**
 * A change that swaps one schema of the answers for its old form wherever it occurs in a
 * versioned route's answers, and rewrites the values there: the route set follows from the
 * schema, so a route that starts answering `schema` is covered without being named.
 */
export function schemaChange(
  schema: z.ZodTypeAny,
  old: z.ZodTypeAny,
  rewrite: (values: Record<string, unknown>[], data: VersionData) => void | Promise<void>,
): Pick<VersionChange, 'route'> {
  return {
    route(_key, route) {
      if (!isVersionedRoute(route)) return undefined;
      const responses: Record<number, z.ZodTypeAny> = {};
      for (const [status, response] of Object.entries(route.responses)) {
        if (!(response instanceof z.ZodType)) continue;
        const replaced = replaceSchema(response, schema, old);
        if (replaced !== response) responses[Number(status)] = replaced;
      }
      if (Object.keys(responses).length === 0) return undefined;
      const before = route.responses as Record<number, z.ZodTypeAny>;
      return {
        responses,
        async down(answer, data) {
          const newer = before[answer.status];
          if (!newer || !(answer.status in responses)) return answer;
          const body = copyJson(answer.body);
          await rewrite(valuesAt(newer, body, schema) as Record<string, unknown>[], data);
          return { status: answer.status, body };
        },
      };
    },
  };
}
