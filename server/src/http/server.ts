import { createServer, type RequestListener, type Server } from 'node:http';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { answerHalfClosedClients } from '../runtime/half-open';
import { leanJson } from '../runtime/lean-json';
import { prebuiltMessages } from '../runtime/prebuilt-messages';
import { answerClientErrors } from './client-errors';
import { observed } from './observe';
import { CHECK_INTERVAL_MS } from './timeouts';

/**
 * An Express app with the service's settings: no `X-Powered-By`, no ETags of Express's own
 * (conditional reads answer their own, D29), flat query strings, the one-write `res.json`.
 */
export function expressApp(): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Flat query strings only: `a[b]=1` stays a literal key, repeated keys become arrays (400).
  app.set('query parser', 'simple');
  leanJson(app);
  return app;
}

/** An HTTP server that serves an Express app, once given one. */
export interface AppServer extends Server {
  /** Serves `app` (through `listener`, a wrapper of it, when given); call before the first request. */
  serve(app: Express, listener?: RequestListener): AppServer;
}

/**
 * The HTTP server of the app: its requests and responses built with the app's own prototypes
 * (`runtime/prebuilt-messages.ts`), half-closing clients answered (`runtime/half-open.ts`).
 * `serve` may come after `listen` (the test harness learns its address before it builds the app).
 * Every request is served in its request context, traced when tracing is on (./observe.ts).
 */
export function createAppServer(): AppServer {
  const messages = prebuiltMessages();
  const server = createServer({
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
    ...messages?.options,
  }) as AppServer;
  answerHalfClosedClients(server);
  // D2 also for what Node's parser refuses (431, 400, 408).
  answerClientErrors(server);
  server.serve = (app, listener = app) => {
    messages?.adopt(app);
    server.on('request', observed(listener, app.locals.logger as Logger | undefined));
    return server;
  };
  return server;
}
