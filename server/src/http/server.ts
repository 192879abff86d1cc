import { createServer, IncomingMessage, type RequestListener, type Server, ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import { answerClientErrors } from './client-errors';
import { leanJson } from './json-response';
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
 * An HTTP server whose requests and responses are built with the app's own prototypes
 * (`app.request`, `app.response`), through Node's `IncomingMessage` and `ServerResponse`
 * options. Express otherwise gives every request and response its prototype after the fact
 * (`Object.setPrototypeOf` in its init step): V8 then drops the objects' shapes, and every
 * property read on them afterwards, Node's own writes of the response included, takes the
 * slow path. Built with the right prototype, that step has nothing to change (a bare
 * Express route answers over three times as fast: `pnpm bench auth`).
 *
 * `serve` may come after `listen` (the test harness learns its address before it builds the app).
 */
export function createAppServer(): AppServer {
  // Plain constructors that call Node's on the new object, as Node's own subclasses do. Not
  // `class … extends`: building through a derived constructor measured a third slower on a
  // cached read. V8 sizes an object's in-object fields from the `this.… =` assignments in its
  // constructor's source; Node's fields (26 and 40 in Node 20) are assigned in Node's
  // constructors, so the never-run assignments below only reserve room for them. Without it
  // a response's fields overflow to a dictionary, and a cached read ran a quarter slower.
  function AppRequest(this: Record<string, unknown>, socket: unknown) {
    (IncomingMessage as unknown as (...args: unknown[]) => void).call(this, socket);
    // biome-ignore format: one reserved field per name, kept compact
    if (socket === RESERVE)
      this.r0 = this.r1 = this.r2 = this.r3 = this.r4 = this.r5 = this.r6 = this.r7 =
      this.r8 = this.r9 = this.r10 = this.r11 = this.r12 = this.r13 = this.r14 = this.r15 =
      this.r16 = this.r17 = this.r18 = this.r19 = this.r20 = this.r21 = this.r22 = this.r23 =
      this.r24 = this.r25 = this.r26 = this.r27 = this.r28 = this.r29 = this.r30 = this.r31 =
        undefined;
  }
  function AppResponse(this: Record<string, unknown>, req: unknown, options: unknown) {
    (ServerResponse as unknown as (...args: unknown[]) => void).call(this, req, options);
    // biome-ignore format: one reserved field per name, kept compact
    if (req === RESERVE)
      this.w0 = this.w1 = this.w2 = this.w3 = this.w4 = this.w5 = this.w6 = this.w7 =
      this.w8 = this.w9 = this.w10 = this.w11 = this.w12 = this.w13 = this.w14 = this.w15 =
      this.w16 = this.w17 = this.w18 = this.w19 = this.w20 = this.w21 = this.w22 = this.w23 =
      this.w24 = this.w25 = this.w26 = this.w27 = this.w28 = this.w29 = this.w30 = this.w31 =
      this.w32 = this.w33 = this.w34 = this.w35 = this.w36 = this.w37 = this.w38 = this.w39 =
      this.w40 = this.w41 = this.w42 = this.w43 = this.w44 = this.w45 = this.w46 = this.w47 =
        undefined;
  }
  // Until `serve`, Node's own prototypes.
  AppRequest.prototype = IncomingMessage.prototype;
  AppResponse.prototype = ServerResponse.prototype;
  const server = createServer({
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  }) as AppServer;
  // A client that half-closes once its request is sent (`shutdown(SHUT_WR)`, as `nc -N` and
  // some proxies do) still gets its answer: Node would otherwise drop the request in flight,
  // whose effects may already be committed. Its connection ends after that answer.
  (server as { httpAllowHalfOpen?: boolean }).httpAllowHalfOpen = true;
  // D2 also for what Node's parser refuses (431, 400, 408).
  answerClientErrors(server);
  server.serve = (app, listener = app) => {
    AppRequest.prototype = app.request;
    AppResponse.prototype = app.response;
    server.on('request', listener);
    return server;
  };
  return server;
}

/** Never passed: the branches that test for it only reserve room (above). */
const RESERVE = Symbol('never passed');
