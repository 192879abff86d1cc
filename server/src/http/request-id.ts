import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import { currentRequest } from '../lib/request-context';

declare global {
  namespace Express {
    interface Request {
      id: string;
    }
  }
}

// A client-sent id is echoed only when it is short and printable, so it can't forge log lines.
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The id of a request: the client's when usable, else a new one. */
export function requestIdOf(headers: IncomingHttpHeaders): string {
  const sent = headers['x-request-id'];
  return typeof sent === 'string' && CLIENT_ID.test(sent) ? sent : randomUUID();
}

/**
 * D2: every response carries `x-request-id`, echoed when the client sent a usable one: the id
 * of the request's context (./observe.ts), which its log lines carry.
 */
export const requestId: RequestHandler = (req, res, next) => {
  req.id = currentRequest()?.requestId ?? requestIdOf(req.headers);
  res.setHeader('x-request-id', req.id);
  next();
};
