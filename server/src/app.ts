import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  API_VERSIONS,
  type ApiVersion,
  contract,
  contractFor,
  LATEST_API_VERSION,
  type RouteMeta,
  servedDocuments,
  type TMerchantSettings,
} from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import { createExpressEndpoints, type RequestValidationError } from '@ts-rest/express';
import express, { type Express, type RequestHandler } from 'express';
import type { AppDeps } from './app-deps';
import { AppPins } from './cache/app-pins';
import { followChanges } from './cache/listener';
import { StoreCache } from './cache/store-cache';
import { RevocationFeed } from './domain/auth/revocations';
import { tokenKeys } from './domain/auth/tokens';
import { claimLinks } from './domain/claims/links';
import type { QuotePricing } from './domain/partner/pricing-source';
import { accessLog, requestLog } from './http/access-log';
import { ApiUsage } from './http/api-usage';
import { type AuthServices, authenticate, StoreModes, tokenClientOf, verifiedTokens } from './http/auth';
import { bodyParser, refuseNulInUrl } from './http/body';
import { clientIp } from './http/client-ip';
import { withCompiledRequest } from './http/compiled-schema';
import { publicCors } from './http/cors';
import { docs } from './http/docs';
import { errorHandler, HttpError, zodIssues } from './http/errors';
import { health } from './http/health';
import { IdempotencySweeper, idempotency } from './http/idempotency';
import { PublicReadCache } from './http/public-cache';
import { RateLimiter } from './http/rate-limit';
import { requestId } from './http/request-id';
import { sequence } from './http/sequence';
import { expressApp } from './http/server';
import { unmatched } from './http/unmatched';
import { versionDocs } from './http/version-docs';
import { chooseVersion, versionData, versionedFailures, versionedHandler, versionGate } from './http/versions';
import { KeysetPager } from './lib/pager';
import { ServiceMetrics } from './metrics';
import { isPagePath, PAGE_ROUTES, pages } from './pages/index';
import { mountedRoutes } from './routes/index';
import { oauthValidationError } from './routes/oauth';

export type { AppDeps } from './app-deps';

/** Background work createApp starts; `stopApp` ends it. */
interface Running {
  stop(): void;
}

/**
 * The OAuth token and revoke endpoints: bodies may also be form-encoded (RFC 6749 §4.1.3,
 * RFC 7009; D11), errors carry RFC 6749 codes (D2) and no answer may be cached (D11).
 */
const OAUTH_PATHS = new Set(['/v1/oauth/token', '/v1/oauth/revoke']);

const nosniff: RequestHandler = (_req, res, next) => {
  res.setHeader('x-content-type-options', 'nosniff');
  next();
};

/** Routes served outside the contract, known to the 405 answer. */
const OPERATIONAL_ROUTES = [
  '/healthz',
  '/readyz',
  '/openapi.json',
  ...API_VERSIONS.map((v) => `/openapi/${v}.json`),
  '/docs',
  '/docs/init.js',
  '/docs/versions',
].map((path) => ({
  method: 'GET',
  path,
}));

/** The Express application, without `listen` (tests and main.ts both use it). */
export function createApp(deps: AppDeps): Express {
  const app = expressApp();

  const metrics = deps.metrics ?? new ServiceMetrics(deps.db);
  const auth = authServices(deps, metrics);
  const log = requestLog(deps.logger, metrics);
  const publicCache = new PublicReadCache(
    Object.values(contract.public).map((r) => r.path),
    log,
    metrics,
    (path, req) => auth.limiter.local(`ip:${path}:${clientIp(req, auth.trustProxy)}`, auth.limits.public),
  );
  const pricingCache = new StoreCache<QuotePricing>();
  const settingsCache = new StoreCache<TMerchantSettings>();
  /** Every cache of store-derived values: one invalidation path for all (D29). */
  const storeCaches = [publicCache.store, pricingCache, settingsCache];
  // D13, D29: what every process (this one included) announces once it has committed.
  const listener = followChanges(deps.db, { storeCaches, revocations: auth.revocations }, deps.logger);
  const context = {
    ...deps,
    publicCache,
    pricingCache,
    settingsCache,
    auth,
    claimLinks: claimLinks(deps.config.secretKey, deps.config.publicBaseUrl),
    pager: new KeysetPager(deps.config.secretKey),
    apiUsage: new ApiUsage(deps.db, deps.logger),
  };
  const routes = mountedRoutes(context);
  const pins = new AppPins(deps.db, deps.logger);
  const idempotencySweeper = new IdempotencySweeper(deps.db);
  const fallback = unmatched([...routes.map((r) => r.route), ...OPERATIONAL_ROUTES, ...PAGE_ROUTES]);
  const pageRouter = pages(context);

  const operationalPaths = new Set(OPERATIONAL_ROUTES.map((r) => r.path));
  const operational = sequence([
    health(deps.db, deps.isShuttingDown),
    // The reference page's version picker shows each dated version's document (D44).
    docs(
      deps.config,
      servedDocuments().map((d) => ({
        version: d.version,
        url: d.url,
        label: d.deprecated ? `${d.version} (deprecated)` : `${d.version} (latest)`,
      })),
    ),
    versionDocs(deps.config),
  ]);
  const publicPaths = routes.filter((r) => (r.route.metadata as RouteMeta).auth === 'public').map((r) => r.route.path);
  // One Express layer for everything before the routes: each layer of its own costs the
  // router's matching and bookkeeping on every request.
  app.use(
    sequence([
      requestId,
      accessLog(log, operationalPaths),
      nosniff,
      publicCors(publicPaths),
      // Health, the document and its page (with its assets under /docs/): one check for the API's requests.
      (req, res, next) =>
        operationalPaths.has(req.path) || req.path.startsWith('/docs/') ? operational(req, res, next) : next(),
      // OPTIONS is answered from the contract (Allow, and CORS for public reads), not by Express.
      (req, res, next) => (req.method === 'OPTIONS' ? fallback(req, res, next) : next()),
      // D11, RFC 6749 §5.1: no token answer, success or failure, is stored by any cache.
      (req, res, next) => {
        if (OAUTH_PATHS.has(req.path)) res.setHeader('cache-control', 'no-store').setHeader('pragma', 'no-cache');
        next();
      },
      refuseNulInUrl,
      // D40, D41: the pages read their own form bodies, so they come before the API's parsers;
      // only requests to a page's path enter their router.
      (req, res, next) => (isPagePath(req.path) ? pageRouter(req, res, next) : next()),
      // D44: the version picks the router, so it is chosen before the routes match (and before
      // the body is read, so that a body refused names the version of a versioned route too).
      chooseVersion(pins, tokenClientOf(auth)),
      bodyParser(OAUTH_PATHS),
    ]),
  );
  app.use(contractRoutes(routes, deps, auth, served(context.apiUsage, metrics)));
  app.use(fallback);
  app.use(versionedFailures(deps.config.publicBaseUrl));
  app.use(errorHandler(deps.logger, OAUTH_PATHS));

  // The shopper widget's read is answered from memory before Express does any work (D29,
  // scripts/bench/public-read.ts); `app(req, res)` and `app.listen` both go through handle.
  const inner = app as unknown as { handle: (req: IncomingMessage, res: ServerResponse, next?: () => void) => void };
  const handle = inner.handle.bind(app);
  inner.handle = (req, res, next) => {
    if (!publicCache.tryServe(req, res)) handle(req, res, next);
  };
  (app.locals as { running?: Running }).running = {
    stop() {
      auth.revocations.stop();
      auth.limiter.stop();
      void listener.stop();
      idempotencySweeper.stop();
      void context.apiUsage.stop();
      pins.stop();
    },
  };
  return app;
}

/**
 * D44 usage: once a versioned answer is sent, the version that served it is counted, by app
 * for its API health report (the calling app as its verified token names it) and in the
 * process's figures.
 */
function served(usage: ApiUsage, metrics: ServiceMetrics) {
  return (req: express.Request, res: express.Response, version: ApiVersion) => {
    res.on('finish', () => {
      metrics.apiVersionAnswer(version);
      if (req.caller?.kind === 'token') usage.record(req.caller.claims.clientId, version);
    });
  };
}

/** What the auth gate works with: keys, kept tokens, the revocation feed, the limits (D4, D13). */
function authServices(deps: AppDeps, metrics: ServiceMetrics): AuthServices {
  return {
    keys: tokenKeys(deps.config.secretKey, deps.config.publicBaseUrl),
    verified: verifiedTokens(),
    revocations: new RevocationFeed(deps.db),
    limiter: new RateLimiter(deps.db),
    limits: { ...deps.config.rateLimits, ...deps.rateLimits },
    trustProxy: deps.config.trustProxy,
    metrics,
    storeModes: new StoreModes(deps.db),
  };
}

/** The first two segments of a path: `/v1/orders` of `/v1/orders/:sourceOrderId`. */
function prefixOf(path: string): string {
  const second = path.indexOf('/', 1);
  const third = second === -1 ? -1 : path.indexOf('/', second + 1);
  return third === -1 ? path : path.slice(0, third);
}

/**
 * The contract's routes, mounted by ts-rest with authentication and idempotency before each
 * handler. One router per path prefix: a request is matched against the few routes of its
 * prefix (`/v1/orders`), not against all of them in turn.
 */
function contractRoutes(
  routes: ReturnType<typeof mountedRoutes>,
  deps: AppDeps,
  auth: AuthServices,
  onServed: (req: express.Request, res: express.Response, version: ApiVersion) => void,
): RequestHandler {
  const newest = new Map(routes.map((r) => [`${r.group}.${r.name}`, r]));
  const data = versionData(deps.db);
  // D44 first (the version marks every answer of a versioned route, auth failures included),
  // then D33 after authentication, since an Idempotency-Key belongs to the caller's
  // installation. One step of ts-rest's route for all three.
  const globalMiddleware = [
    sequence([
      versionGate(deps.config.publicBaseUrl, onServed) as RequestHandler,
      authenticate(auth) as RequestHandler,
      idempotency(deps.db, deps.logger),
    ]) as never,
  ];
  // One set of routers per version: the newest contract with its handlers, and each older
  // version's contract (contractFor) with the newest handlers behind its changes.
  const byVersion = new Map<ApiVersion, Map<string, express.Router>>();
  for (const version of API_VERSIONS) {
    const mounted =
      version === LATEST_API_VERSION
        ? routes.map((r) => ({ group: r.group, name: r.name, route: r.route, implementation: r.implementation }))
        : [...contractFor(version).routes.values()].map((r) => {
            const [group, name] = r.key.split('.') as [string, string];
            return {
              group,
              name,
              route: r.route,
              implementation: versionedHandler(r, newest.get(r.key)?.implementation, data),
            };
          });
    byVersion.set(version, prefixRouters(mounted, deps, globalMiddleware));
  }
  return (req, res, next) => {
    const router = byVersion.get(req.apiVersion ?? LATEST_API_VERSION)!.get(prefixOf(req.path));
    if (router) router(req, res, next);
    else next();
  };
}

/**
 * The routes of one version mounted by ts-rest, one router per path prefix: a request is matched
 * against the few routes of its prefix (`/v1/orders`), not against all of them in turn. Each
 * route's request schemas are compiled (./http/compiled-schema.ts).
 */
function prefixRouters(
  routes: readonly { group: string; name: string; route: AppRoute; implementation: unknown }[],
  deps: AppDeps,
  globalMiddleware: never[],
): Map<string, express.Router> {
  const byPrefix = new Map<string, { contract: Record<string, Record<string, unknown>>; handlers: typeof contract }>();
  for (const r of routes) {
    const prefix = prefixOf(r.route.path);
    const entry = byPrefix.get(prefix) ?? { contract: {}, handlers: {} as typeof contract };
    byPrefix.set(prefix, entry);
    const handlers = entry.handlers as Record<string, Record<string, unknown>>;
    entry.contract[r.group] = { ...entry.contract[r.group], [r.name]: withCompiledRequest(r.route) };
    handlers[r.group] = { ...handlers[r.group], [r.name]: r.implementation };
  }
  const routers = new Map<string, express.Router>();
  for (const [prefix, entry] of byPrefix) {
    const router = express.Router();
    createExpressEndpoints(entry.contract as never, entry.handlers as never, router, {
      logInitialization: false,
      jsonQuery: false,
      responseValidation: deps.responseValidation ?? false,
      globalMiddleware,
      // D2: on the token and revoke endpoints a validation failure is an RFC 6749 error.
      requestValidationErrorHandler: (err, req, _res, next) => {
        const failure = validationError(err);
        next(OAUTH_PATHS.has(req.path) ? oauthValidationError(req, failure.message, failure.options.issues) : failure);
      },
    });
    routers.set(prefix, router);
  }
  return routers;
}

/** Stops what createApp started (revocation feed, rate-limit flushes, change listener) before the database closes. */
export function stopApp(app: Express): void {
  (app.locals as { running?: Running }).running?.stop();
}

function validationError(err: RequestValidationError): HttpError {
  const issues = [
    ...(err.pathParams ? zodIssues(err.pathParams, 'params') : []),
    ...(err.headers ? zodIssues(err.headers, 'headers') : []),
    ...(err.query ? zodIssues(err.query, 'query') : []),
    ...(err.body ? zodIssues(err.body, 'body') : []),
  ];
  const first = issues[0];
  return new HttpError(400, first ? `invalid request: ${first.path}: ${first.message}` : 'invalid request', { issues });
}
