import { createServer, IncomingMessage, type RequestListener, type Server, ServerResponse } from 'node:http';
import type { Express } from 'express';

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
 * Express route answers about three times as fast: `scripts/bench`).
 *
 * `serve` may come after `listen` (the test harness learns its address before it builds the app).
 * Node's constructors are called on the new object, as its own subclasses did before classes:
 * building through `Reflect.construct` measured slower than Express's own way.
 */
export function createAppServer(): AppServer {
  function AppRequest(this: IncomingMessage, socket: unknown) {
    (IncomingMessage as unknown as (...args: unknown[]) => void).call(this, socket);
  }
  function AppResponse(this: ServerResponse, req: IncomingMessage, options: unknown) {
    (ServerResponse as unknown as (...args: unknown[]) => void).call(this, req, options);
  }
  // Until `serve`, Node's own prototypes.
  AppRequest.prototype = IncomingMessage.prototype;
  AppResponse.prototype = ServerResponse.prototype;
  const server = createServer({
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  }) as AppServer;
  server.serve = (app, listener = app) => {
    AppRequest.prototype = app.request;
    AppResponse.prototype = app.response;
    server.on('request', listener);
    return server;
  };
  return server;
}
