import type { AppRoute } from '@ts-rest/core';
import type { z } from 'zod';
import { contract } from '../contract';
import { WEBHOOK_BODY_SCHEMAS, WEBHOOK_TOPICS, type WebhookTopic } from '../schemas/webhooks';
import {
  type AddedRoute,
  type Answer,
  isVersionedRoute,
  narrowedRequest,
  narrowSchema,
  type RequestParts,
  type RouteChange,
  replaceSchema,
  routeEntries,
  type VersionChange,
  type VersionData,
} from './change';
import { contextVariantKey } from './changes/context-variant-key';
import { earlierScopeNames } from './changes/earlier-scope-names';
import { merchantSettingsWrite } from './changes/merchant-settings-write';
import { priceRuleTypeFlat } from './changes/price-rule-type-flat';
import { quoteAnswers200 } from './changes/quote-answers-200';
import { isTrackingClaimType, trackingClaimTypes } from './changes/tracking-claim-types';
import { unwrappedAnswers } from './changes/unwrapped-answers';
import { API_VERSIONS, type ApiVersion, VERSION_LIFECYCLE } from './list';

export * from './change';
export {
  DEFAULT_CONTEXT_VARIANT_KEY,
  ZContextCreateBodyKeyed,
  ZPartnerContextKeyed,
  ZPartnerContextResolvedKeyed,
} from './changes/context-variant-key';
export { MERCHANT_SETTINGS_GONE } from './changes/merchant-settings-write';
export { ZPriceTermFlat } from './changes/price-rule-type-flat';
export * from './list';

/**
 * Every version change (D44), in the order they apply going back from the newest contract:
 * the changes of the newest older version first; within a version, in this order (each sees
 * the routes as the ones before it left them).
 */
export const VERSION_CHANGES: readonly VersionChange[] = [
  trackingClaimTypes,
  unwrappedAnswers,
  quoteAnswers200,
  contextVariantKey,
  priceRuleTypeFlat,
  earlierScopeNames,
  merchantSettingsWrite,
];

type Router = Record<string, Record<string, AppRoute>>;

/** One route of one version: its contract route and the changes between it and the newest. */
export interface VersionedRoute {
  key: string;
  route: AppRoute;
  /** Route changes, in the order `down` applies them (newest first); `up` applies them reversed. */
  steps: { change: VersionChange; step: RouteChange }[];
  /** Set for a route of older versions only. */
  added?: AddedRoute;
}

export interface VersionedContract {
  version: ApiVersion;
  /** The version's contract, grouped as the newest one (ts-rest's router shape). */
  router: Router;
  routes: Map<string, VersionedRoute>;
  /** The changes between this version and the newest, in `down` order. */
  changes: readonly VersionChange[];
}

const index = (v: ApiVersion) => API_VERSIONS.indexOf(v);

/** The changes that separate `version` from the newest, in the order `down` applies them. */
export function changesFor(version: ApiVersion): VersionChange[] {
  return VERSION_CHANGES.map((change, order) => ({ change, order }))
    .filter(({ change }) => index(change.version) >= 1 && index(change.version) <= index(version))
    .sort((a, b) => index(a.change.version) - index(b.change.version) || a.order - b.order)
    .map(({ change }) => change);
}

const built = new Map<ApiVersion, VersionedContract>();

/**
 * The contract of one dated version (D44): the newest contract with the changes between it
 * and `version` applied, route by route; routes of older versions only are added to their
 * group. Pure, and built once per version.
 */
export function contractFor(version: ApiVersion): VersionedContract {
  const known = built.get(version);
  if (known) return known;
  const changes = changesFor(version);
  const routes = new Map<string, VersionedRoute>(
    routeEntries(contract as unknown as Router).map(([key, route]) => [key, { key, route, steps: [] }]),
  );
  for (const change of changes) {
    for (const entry of routes.values()) {
      if (entry.added) continue;
      const step = stepOf(change, entry);
      if (!step) continue;
      if (!isVersionedRoute(entry.route)) {
        throw new Error(`version change ${change.id} touches ${entry.key}, which is not versioned (D44)`);
      }
      entry.route = applyStep(entry.route, step);
      entry.steps.push({ change, step });
    }
    for (const [key, added] of Object.entries(change.addedRoutes ?? {})) {
      if (routes.has(key)) throw new Error(`version change ${change.id} adds ${key}, which exists`);
      routes.set(key, { key, route: added.route, steps: [], added });
    }
  }
  // The app's event log (D34) is no versioned route, but the bodies it shows are webhook bodies:
  // each version's document and answers carry that version's (`withWebhookBodiesOf`).
  for (const entry of routes.values()) {
    if (!entry.added && !isVersionedRoute(entry.route)) entry.route = withWebhookBodiesIn(version, entry.route);
  }
  const router: Router = {};
  for (const entry of routes.values()) {
    const [group, name] = entry.key.split('.') as [string, string];
    router[group] = { ...router[group], [name]: entry.route };
  }
  const out = { version, router, routes, changes };
  built.set(version, out);
  return out;
}

/** What `change` makes of a route: its request narrowed (`narrows`) and its own `route` step, the latter winning. */
function stepOf(change: VersionChange, entry: VersionedRoute): RouteChange | undefined {
  const narrowed = narrowedRequest(change, entry.route);
  const own = change.route?.(entry.key, entry.route);
  return narrowed || own ? { ...narrowed, ...own } : undefined;
}

function applyStep(route: AppRoute, step: RouteChange): AppRoute {
  const responses: Record<number, unknown> = { ...(route.responses as Record<number, unknown>) };
  for (const [status, schema] of Object.entries(step.responses ?? {})) {
    if (schema === null) delete responses[Number(status)];
    else responses[Number(status)] = schema;
  }
  // Statuses in ascending order, as the contract writes them (the document lists them so).
  const ordered = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
  return {
    ...route,
    ...(step.body ? { body: step.body } : {}),
    ...(step.query ? { query: step.query } : {}),
    ...(step.description ? { description: step.description(route.description ?? '') } : {}),
    ...(step.metadata ? { metadata: { ...(route.metadata as object), ...step.metadata } } : {}),
    responses: ordered,
  } as AppRoute;
}

/** An old request (validated by the old contract) as the newest contract's handlers take it. */
export function upRequest(
  route: VersionedRoute,
  request: RequestParts,
): { request: RequestParts; states: Record<string, unknown>[] } {
  const states = route.steps.map(() => ({}));
  let out = request;
  for (let i = route.steps.length - 1; i >= 0; i--) {
    const up = route.steps[i]!.step.up;
    if (up) out = up(out, states[i]!);
  }
  return { request: out, states };
}

/** The newest answer of a route as `route`'s version answers it (success answers). */
export async function downAnswer(
  route: VersionedRoute,
  answer: Answer,
  data: VersionData,
  states: Record<string, unknown>[] = [],
): Promise<Answer> {
  // What a step remembers is taken from the newest answer (its ids), before any step changes it.
  for (let i = 0; i < route.steps.length; i++) {
    const { step } = route.steps[i]!;
    if (step.afterNewer) await step.afterNewer(answer, states[i] ?? {}, data);
  }
  let out = answer;
  for (const { step } of route.steps) if (step.down) out = await step.down(out, data);
  return out;
}

/** A D2 error answer of a versioned route as `version` answers it. */
export function downError(version: ApiVersion, answer: Answer): Answer {
  let out = answer;
  for (const change of changesFor(version)) if (change.error) out = change.error(out);
  return out;
}

/**
 * A webhook's delivered envelope in `version` (D32, D44): the newest body rendered by the
 * changes between the newest version and `version`, in the order they apply (D54: a tracking
 * claim type reads null in `claim/created` before 2027-01-15).
 */
export function webhookEnvelope(
  version: ApiVersion,
  event: { id: string; topic: string; livemode: boolean; createdAt: string; body: unknown },
): { id: string; topic: string; apiVersion: ApiVersion; livemode: boolean; createdAt: string; body: unknown } {
  return {
    id: event.id,
    topic: event.topic,
    apiVersion: version,
    livemode: event.livemode,
    createdAt: event.createdAt,
    body: webhookBodyIn(version, event.topic, event.body),
  };
}

/** A webhook's newest body as `version` renders it (D44): what `webhookEnvelope` carries, and the app's event log shows (D34). */
export function webhookBodyIn(version: ApiVersion, topic: string, body: unknown): unknown {
  let out = body;
  for (const change of changesFor(version)) if (change.webhook) out = change.webhook(topic, out);
  return out;
}

/**
 * The schema of a webhook body of `topic` in `version` (D44): the newest one narrowed by the
 * changes between the newest version and `version` (D54: no tracking claim type in
 * `claim/created` before 2027-01-15), for the document and for checking a delivery.
 */
export function webhookBodySchema(version: ApiVersion, topic: WebhookTopic): z.ZodTypeAny {
  let schema: z.ZodTypeAny = WEBHOOK_BODY_SCHEMAS[topic];
  for (const change of changesFor(version)) schema = narrowSchema(schema, change.narrows);
  return schema;
}

/**
 * `schema` with every webhook body in it (by identity: the app event log's, D34) as `version`
 * renders it (`webhookBodySchema`); the very same object when none differs. The documents name
 * these forms as the newest names its own (`ClaimCreatedBody` is 2026-12-01's in its document).
 */
export function withWebhookBodiesOf(version: ApiVersion, schema: z.ZodTypeAny): z.ZodTypeAny {
  let out = schema;
  for (const topic of WEBHOOK_TOPICS) {
    const older = webhookBodySchema(version, topic);
    if (older !== WEBHOOK_BODY_SCHEMAS[topic]) out = replaceSchema(out, WEBHOOK_BODY_SCHEMAS[topic], older);
  }
  return out;
}

/** An unversioned route whose answers carry webhook bodies, with `version`'s bodies (`withWebhookBodiesOf`). */
function withWebhookBodiesIn(version: ApiVersion, route: AppRoute): AppRoute {
  const before = route.responses as Record<number, unknown>;
  let changed = false;
  const responses = Object.fromEntries(
    Object.entries(before).map(([status, schema]) => {
      const after = isZod(schema) ? withWebhookBodiesOf(version, schema) : schema;
      changed ||= after !== schema;
      return [status, after];
    }),
  );
  return changed ? ({ ...route, responses } as AppRoute) : route;
}

const isZod = (schema: unknown): schema is z.ZodTypeAny =>
  typeof schema === 'object' && schema !== null && '_def' in schema && 'safeParse' in schema;

/**
 * A claim type as `version` names it (D54: the tracking claim types read null before
 * 2027-01-15), for an answer no schema change can rewrite: the CSV export (D52).
 */
export function claimTypeIn(version: ApiVersion, claimType: string | null): string | null {
  return isTrackingClaimType(claimType) && changesFor(version).includes(trackingClaimTypes) ? null : claimType;
}

/** The routes each change touches in its version, by contract key. */
export function touchedRoutes(change: VersionChange): string[] {
  const versioned = contractFor(change.version);
  return [...versioned.routes.values()]
    .filter((r) =>
      r.added ? Object.hasOwn(change.addedRoutes ?? {}, r.key) : r.steps.some((s) => s.change === change),
    )
    .map((r) => r.key);
}

/** A schema of a route's answer in one version, by status (for tests and documents). */
export function answerSchema(version: ApiVersion, key: string, status: number): z.ZodTypeAny | undefined {
  const route = contractFor(version).routes.get(key)?.route;
  return (route?.responses as Record<number, z.ZodTypeAny> | undefined)?.[status];
}

/** The document of each served version, for a version picker: `/openapi/<version>.json`. */
export interface ServedDocument {
  version: ApiVersion;
  url: string;
  deprecated: boolean;
}

export function servedDocuments(): ServedDocument[] {
  return API_VERSIONS.map((version) => ({
    version,
    url: `/openapi/${version}.json`,
    deprecated: VERSION_LIFECYCLE[version].deprecated,
  }));
}
