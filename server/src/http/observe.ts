import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { inRequest, type RequestContext } from '../lib/request-context';
import { requestIdOf } from './request-id';

/**
 * Every request served in a request context of its own (`lib/request-context.ts`): its id,
 * later its caller, and the app's logger, so that every log line it causes, in the routes,
 * the domain or the database layer, names it. `logger`: the app's (`app.locals.logger`).
 */
export function observed(listener: RequestListener, logger: Logger | undefined): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const context: RequestContext = { requestId: requestIdOf(req.headers), logger };
    inRequest(context, listener, req, res);
  };
}
