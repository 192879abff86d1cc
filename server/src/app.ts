import {
  API_VERSIONS,
  type ApiVersion,
  contract,
  type RouteMeta,
  servedDocuments,
  type TMerchantSettings,
} from '@protection-service/contract';
import type { AppRoute } from '@ts-rest/core';
import type express from 'express';
import type { Express, RequestHandler } from 'express';
import type { AppDeps } from './app-deps';
import { AppPins } from './cache/app-pins';
import { followChanges } from './cache/listener';
import { StoreCache } from './cache/store-cache';
import { RevocationFeed } from './domain/auth/revocations';
import { tokenKeys } from './domain/auth/tokens';
import { claimLinks } from './domain/claims/links';
import { fileLinks } from './domain/files/files';
import { openFileStorage } from './domain/files/storage';
import type { QuotePricing } from './domain/partner/pricing-source';
import { accessLog, requestLog } from './http/access-log';
import { ApiUsage } from './http/api-usage';
import { type AuthServices, authenticate, StoreModes, tokenClientOf, verifiedTokens } from './http/auth';
import { bodyParser, refuseNulInUrl } from './http/body';
import { clientIp } from './http/client-ip';
import { publicCors } from './http/cors';
import { docs } from './http/docs';
import { errorHandler, requestValidationError } from './http/errors';
import { health } from './http/health';
import { IdempotencySweeper, idempotency } from './http/idempotency';
import { multipartBody } from './http/multipart';
import { dashboardOriginKey, requestOriginGate } from './http/origin';
import { PublicReadCache } from './http/public-cache';
import { RateLimiter } from './http/rate-limit';
import { requestId } from './http/request-id';
import { sequence } from './http/sequence';
import { expressApp } from './http/server';
import { OFFER_SCRIPT_PATH, storefrontScript } from './http/storefront-script';
import { unmatched } from './http/unmatched';
import { versionDocs } from './http/version-docs';
import { chooseVersion, versionData, versionedFailures, versionedRoutes, versionGate } from './http/versions';
import { OfferTokens } from './lib/offer-tokens';
import { KeysetPager } from './lib/pager';
import { ServiceMetrics } from './metrics';
import { demoStorefront } from './pages/demo-storefront';
import { isPagePath, PAGE_ROUTES, pages } from './pages/index';
import { mountedRoutes } from './routes/index';
import { oauthValidationError } from './routes/oauth';
import { answerFirst } from './runtime/answer-first';

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
  OFFER_SCRIPT_PATH,
].map((path) => ({
  method: 'GET',
  path,
}));

/** The Express application, without `listen` (tests and main.ts both use it). */
export function createApp(deps: AppDeps): Express {
  const app = expressApp();
  // Where the lines of the code below the routes go while this app serves a request (http/observe.ts).
  app.locals.logger = deps.logger;
  const { context, metrics, log, listener, pins } = appContext(deps);
  const { auth, publicCache } = context;
  // The shopper widget's read is answered from memory before Express does any work (D29).
  answerFirst(app, (req, res) => publicCache.tryServe(req, res));
  const routes = mountedRoutes(context);
  const idempotencySweeper = new IdempotencySweeper(deps.db, undefined, deps.logger);
  const fallback = unmatched([...routes.map((r) => r.route), ...OPERATIONAL_ROUTES, ...PAGE_ROUTES]);
  const pageRouter = pages(context);
  const operationalPaths = new Set(OPERATIONAL_ROUTES.map((r) => r.path));
  const operational = operationalRoutes(deps);
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
        operationalPaths.has(req.path) || /^\/(docs|widget|demo)\//.test(req.path)
          ? operational(req, res, next)
          : next(),
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
      bodyParser(OAUTH_PATHS, uploadPathsOf(routes)),
    ]),
  );
  app.use(
    versionedRoutes(routes, {
      // D44 first (the version marks every answer of a versioned route, auth failures included),
      // then D33 after authentication, since an Idempotency-Key belongs to the caller's installation.
      before: sequence([
        versionGate(deps.config.publicBaseUrl, served(context.apiUsage, metrics)) as RequestHandler,
        authenticate(auth) as RequestHandler,
        multipartBody,
        idempotency(deps.db, deps.logger, metrics),
        // D53: after the body is read, so the handler's awaits keep the origin the audit log records.
        requestOriginGate(auth.trustProxy, dashboardOriginKey(deps.config.secretKey)),
      ]),
      responseValidation: deps.responseValidation ?? false,
      // D2: on the token and revoke endpoints a validation failure is an RFC 6749 error.
      invalidRequest: (err, req) => {
        const failure = requestValidationError(err);
        return OAUTH_PATHS.has(req.path) ? oauthValidationError(req, failure.message, failure.options.issues) : failure;
      },
      data: versionData(deps.db),
    }),
  );
  app.use(fallback);
  app.use(versionedFailures(deps.config.publicBaseUrl));
  app.use(errorHandler(deps.logger, OAUTH_PATHS));
  const parts = [auth.revocations, auth.limiter, listener, idempotencySweeper, context.apiUsage, pins];
  (app.locals as { running?: Running }).running = runningOf(parts, context.fileStorage);
  return app;
}

/** What stops with the app: every background part it started, and the file storage's connections. */
function runningOf(parts: readonly { stop(): unknown }[], fileStorage: { close(): void }): Running {
  return {
    stop() {
      for (const part of parts) void part.stop();
      fileStorage.close();
    },
  };
}

/** D56: the paths whose bodies their route reads, once the caller is known (http/multipart.ts). */
function uploadPathsOf(routes: readonly { route: AppRoute }[]): Set<string> {
  const uploads = routes.filter((r) => 'contentType' in r.route && r.route.contentType === 'multipart/form-data');
  return new Set(uploads.map((r) => r.route.path));
}

/** What the routes and pages are built from: the dependencies with the process's caches and services. */
function appContext(deps: AppDeps) {
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
    fileStorage: openFileStorage(deps.config.fileStorage),
    fileLinks: fileLinks(deps.config.secretKey, deps.config.publicBaseUrl),
    pager: new KeysetPager(deps.config.secretKey),
    offerTokens: new OfferTokens(deps.config.secretKey),
    apiUsage: new ApiUsage(deps.db, deps.logger),
  };
  return { context, metrics, log, listener, pins: new AppPins(deps.db, deps.logger) };
}

/** Health, the API reference page with its version picker (D44) and the changelog page. */
function operationalRoutes(deps: AppDeps): RequestHandler {
  return sequence([
    health(deps.db, deps.isShuttingDown),
    // D55: the storefront's <protection-offer> script, and a development install's demo cart.
    storefrontScript,
    demoStorefront(deps),
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
      // An app's calls only: a staff token (D49) has no app to report to.
      if (req.caller?.kind === 'token' && req.caller.claims.kind === 'app')
        usage.record(req.caller.claims.clientId, version);
    });
  };
}

/** What the auth gate works with: keys, kept tokens, the revocation feed, the limits (D4, D13). */
function authServices(deps: AppDeps, metrics: ServiceMetrics): AuthServices {
  return {
    keys: tokenKeys(deps.config.secretKey, deps.config.publicBaseUrl),
    verified: verifiedTokens(),
    revocations: new RevocationFeed(deps.db, undefined, deps.logger),
    limiter: new RateLimiter(deps.db, undefined, deps.logger),
    limits: { ...deps.config.rateLimits, ...deps.rateLimits },
    trustProxy: deps.config.trustProxy,
    metrics,
    storeModes: new StoreModes(deps.db),
  };
}

/** Stops what createApp started (revocation feed, rate-limit flushes, change listener) before the database closes. */
export function stopApp(app: Express): void {
  (app.locals as { running?: Running }).running?.stop();
}
