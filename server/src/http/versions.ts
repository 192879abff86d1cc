import {
  API_VERSIONS,
  type ApiVersion,
  contractFor,
  deprecationHeaders,
  downAnswer,
  isApiVersion,
  LATEST_API_VERSION,
  upRequest,
  type VersionData,
  type VersionedRoute,
} from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import { createExpressEndpoints, type RequestValidationError } from '@ts-rest/express';
import express, {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import type { Db } from '../db/database';
import { withCompiledRequest } from '../runtime/compiled-schema';
import { HttpError } from './errors';
import { compilePaths } from './unmatched';

/** The request header a client names its version with, and the answer header naming the one that served (D44). */
export const API_VERSION_HEADER = 'api-version';

declare global {
  namespace Express {
    interface Request {
      /** The version that serves this request if its route is versioned (D44): header, pin, latest. */
      apiVersion?: ApiVersion;
      /** An `Api-Version` header that names no supported version (answered 400 on a versioned route). */
      apiVersionRefused?: boolean;
    }
  }
}

/** Where a calling app's pinned version comes from (the apps cache); undefined when it has none. */
export interface PinSource {
  pinOf(clientId: string): ApiVersion | undefined | Promise<ApiVersion | undefined>;
}

/** The client id of a request's access token when it is one this process can verify, else undefined. */
export type TokenClient = (req: Request) => string | undefined;

const SUPPORTED = `Api-Version must be one of: ${API_VERSIONS.join(', ')} (the newest first)`;

/**
 * D44, choosing the version, before the routers run (the version picks the router): the
 * `Api-Version` header when there is one; otherwise the calling app's pin; otherwise the
 * latest. A header naming no supported version leaves the latest router to match the route and
 * marks the request, so that a versioned route refuses it (`versionGate`) and an unversioned one
 * ignores the header.
 */
export function chooseVersion(pins: PinSource, tokenClient: TokenClient): RequestHandler {
  return (req, _res, next) => {
    const header = req.headers[API_VERSION_HEADER];
    if (header !== undefined) {
      const value = Array.isArray(header) ? undefined : header.trim();
      if (isApiVersion(value)) req.apiVersion = value;
      else {
        req.apiVersion = LATEST_API_VERSION;
        req.apiVersionRefused = true;
      }
      return next();
    }
    const clientId = tokenClient(req);
    if (clientId === undefined) {
      req.apiVersion = LATEST_API_VERSION;
      return next();
    }
    const pin = pins.pinOf(clientId);
    if (pin === undefined || !(pin instanceof Promise)) {
      req.apiVersion = pin ?? LATEST_API_VERSION;
      return next();
    }
    pin.then(
      (v) => {
        req.apiVersion = v ?? LATEST_API_VERSION;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

/**
 * The first step of every contract route (D44): on a versioned route (app access token) it
 * refuses an unknown version (400 listing the supported ones, without `Api-Version`), and
 * otherwise marks the answer, errors included, with `Api-Version` and, for a deprecated
 * version, `Deprecation`, `Sunset` and `Link`. The error handler renders an older version's
 * D2 errors through its changes (`http/errors.ts`).
 */
export function versionGate(
  publicBaseUrl: string,
  onServed?: (req: Request, res: Response, version: ApiVersion) => void,
) {
  const headers = new Map(API_VERSIONS.map((v) => [v, Object.entries(deprecationHeaders(v, publicBaseUrl))]));
  return (req: Request & { tsRestRoute?: AppRoute }, res: Response, next: NextFunction): void => {
    const meta = req.tsRestRoute?.metadata as { auth?: string } | undefined;
    if (meta?.auth !== 'token') {
      // Unversioned: the version has no say in what it answers.
      req.apiVersion = undefined;
      next();
      return;
    }
    if (req.apiVersionRefused) {
      req.apiVersion = undefined;
      next(new HttpError(400, SUPPORTED));
      return;
    }
    const version = req.apiVersion ?? LATEST_API_VERSION;
    res.setHeader('api-version', version);
    for (const [name, value] of headers.get(version) ?? []) res.setHeader(name, value);
    res.locals.apiVersion = version;
    onServed?.(req, res, version);
    next();
  };
}

/**
 * D44 for the failures answered before a route ran (a body that cannot be read, 413, 415): when
 * the method and path are those of a versioned route, the answer names the version too, as
 * every answer of a versioned route does. Runs just before the error handler.
 */
export function versionedFailures(publicBaseUrl: string): ErrorRequestHandler {
  const patterns = new Map(
    API_VERSIONS.map((v) => {
      const routes = [...contractFor(v).routes.values()].map((r) => r.route);
      const versioned = compilePaths(routes.filter((r) => (r.metadata as { auth?: string }).auth === 'token'));
      const other = compilePaths(routes.filter((r) => (r.metadata as { auth?: string }).auth !== 'token'));
      return [v, { versioned, other }] as const;
    }),
  );
  const headers = new Map(API_VERSIONS.map((v) => [v, Object.entries(deprecationHeaders(v, publicBaseUrl))]));
  const matches = (list: ReturnType<typeof compilePaths>, req: Request) =>
    list.some((p) => p.methods.has(req.method) && p.regex.test(req.path));
  return (err, req, res, next) => {
    const version = req.apiVersion;
    if (version && !req.apiVersionRefused && !res.headersSent && !res.hasHeader('api-version')) {
      const known = patterns.get(version)!;
      if (matches(known.versioned, req) && !matches(known.other, req)) {
        res.setHeader('api-version', version);
        for (const [name, value] of headers.get(version) ?? []) res.setHeader(name, value);
      }
    }
    next(err);
  };
}

type Handler = (input: any) => Promise<{ status: number; body: unknown }>;

/**
 * The handler of a route of an older version: its (already validated) request made into the
 * newest one by the changes' `up`, the newest handler, and its answer made old by their
 * `down`. A route of older versions only answers what its change says, once authenticated.
 */
export function versionedHandler(route: VersionedRoute, newest: Handler | undefined, data: VersionData): Handler {
  const added = route.added;
  if (added) {
    return async () => {
      throw new HttpError(added.refuse.status, added.refuse.message);
    };
  }
  if (!newest) throw new Error(`route ${route.key} has no handler`);
  if (route.steps.length === 0) return newest;
  return async (input) => {
    const { request, states } = upRequest(route, {
      params: input.params,
      query: input.query,
      body: input.body,
      headers: input.headers,
    });
    const answer = await newest({ ...input, ...request });
    return downAnswer(route, answer, data, states) as Promise<{ status: number; body: unknown }>;
  };
}

/** What the older versions remember beside the newest data: a context's 2025-01-01 `variantKey`. */
export function versionData(db: Db): VersionData {
  return {
    async contextVariantKeys(ids) {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom('partnerContexts')
        .select(['id', 'legacyVariantKey'])
        .where('id', 'in', [...ids])
        .where('legacyVariantKey', 'is not', null)
        .execute();
      return new Map(rows.map((r) => [r.id, r.legacyVariantKey!]));
    },
    async rememberContextVariantKey(contextId, variantKey) {
      await db
        .updateTable('partnerContexts')
        .set({ legacyVariantKey: variantKey })
        .where('id', '=', contextId)
        .execute();
    },
  };
}

/** A contract route with the handler of its newest version. */
export interface RouteWithHandler {
  group: string;
  name: string;
  route: AppRoute;
  implementation: Handler;
}

export interface VersionedRoutesOptions {
  /** What runs before every route's handler, as ts-rest's global middleware (one step). */
  before: RequestHandler;
  /** Answers are checked against the contract (tests). */
  responseValidation: boolean;
  /** Turns a request ts-rest found invalid into the error to answer. */
  invalidRequest: (err: RequestValidationError, req: Request) => unknown;
  data: VersionData;
}

/**
 * The contract's routes of every API version (D44), one Express router per version and path
 * prefix: the newest contract with its handlers, and each older version's contract
 * (`contractFor`) with the newest handlers behind its changes (`versionedHandler`). A request
 * is matched against its version's routes of its prefix (`/v1/orders`) only, not against all
 * of them in turn.
 */
export function versionedRoutes(routes: readonly RouteWithHandler[], options: VersionedRoutesOptions): RequestHandler {
  const newest = new Map(routes.map((r) => [`${r.group}.${r.name}`, r]));
  const byVersion = new Map<ApiVersion, Map<string, Router>>();
  for (const version of API_VERSIONS) {
    const mounted =
      version === LATEST_API_VERSION
        ? routes
        : [...contractFor(version).routes.values()].map((r) => {
            const [group, name] = r.key.split('.') as [string, string];
            return {
              group,
              name,
              route: r.route,
              implementation: versionedHandler(r, newest.get(r.key)?.implementation, options.data),
            };
          });
    byVersion.set(version, prefixRouters(mounted, options));
  }
  return (req, res, next) => {
    const router = byVersion.get(req.apiVersion ?? LATEST_API_VERSION)!.get(prefixOf(req.path));
    if (router) router(req, res, next);
    else next();
  };
}

/** The first two segments of a path: `/v1/orders` of `/v1/orders/:sourceOrderId`. */
function prefixOf(path: string): string {
  const second = path.indexOf('/', 1);
  const third = second === -1 ? -1 : path.indexOf('/', second + 1);
  return third === -1 ? path : path.slice(0, third);
}

/** The routes of one version mounted by ts-rest, one router per path prefix, request schemas compiled. */
function prefixRouters(routes: readonly RouteWithHandler[], options: VersionedRoutesOptions): Map<string, Router> {
  const byPrefix = new Map<string, { contract: Record<string, Record<string, AppRoute>>; handlers: HandlerTree }>();
  for (const r of routes) {
    const prefix = prefixOf(r.route.path);
    const entry = byPrefix.get(prefix) ?? { contract: {}, handlers: {} };
    byPrefix.set(prefix, entry);
    entry.contract[r.group] = { ...entry.contract[r.group], [r.name]: withCompiledRequest(r.route) };
    entry.handlers[r.group] = { ...entry.handlers[r.group], [r.name]: r.implementation };
  }
  const routers = new Map<string, Router>();
  for (const [prefix, entry] of byPrefix) {
    const router = express.Router();
    createExpressEndpoints(entry.contract as never, entry.handlers as never, router, {
      logInitialization: false,
      jsonQuery: false,
      responseValidation: options.responseValidation,
      globalMiddleware: [options.before as never],
      requestValidationErrorHandler: (err, req, _res, next) =>
        next(options.invalidRequest(err, req as unknown as Request)),
    });
    routers.set(prefix, router);
  }
  return routers;
}
type HandlerTree = Record<string, Record<string, Handler>>;
