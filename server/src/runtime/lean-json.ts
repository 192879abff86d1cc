import express, { type Express, type Response } from 'express';
import { fastPath, firstProblem, outsideRange, packageVersion } from './fast-paths';

const on = fastPath({
  name: 'lean-json',
  guard: () =>
    firstProblem(
      () => outsideRange('express', packageVersion('express'), '4.17.0', '5.0.0'),
      () => (typeof express.response.json === 'function' ? undefined : 'express has no res.json to replace'),
    ),
});

/**
 * `res.json` for every answer of the app, in one write: the body serialized once, its type
 * and length set directly. Express's own goes through `res.send`, which parses the content
 * type again to add a charset and checks freshness for ETags this service does not let
 * Express compute (conditional reads answer their own 304, D29); neither is needed here, and
 * the answer is the same bytes with the same headers.
 */
export function leanJson(app: Express): void {
  if (!on()) return;
  app.response.json = function json(this: Response, body: unknown): Response {
    const text = JSON.stringify(body) ?? '';
    if (!this.hasHeader('content-type')) this.setHeader('content-type', 'application/json; charset=utf-8');
    // 204 and 304 have no body (RFC 9110 §6.4.1); HEAD has the headers of the body it does not get.
    if (this.statusCode === 204 || this.statusCode === 304) {
      this.end();
      return this;
    }
    this.setHeader('content-length', Buffer.byteLength(text));
    this.end(this.req.method === 'HEAD' ? undefined : text);
    return this;
  };
}
