import express, { type RequestHandler } from 'express';
import { HttpError, NUL_MESSAGE } from './errors';

/** D3: JSON bodies up to 1 MiB. */
export const BODY_LIMIT = '1mb';

const FORM = 'application/x-www-form-urlencoded';

/**
 * Parses JSON bodies everywhere and form bodies where `formPaths` says so (RFC 6749 token
 * and revoke endpoints, D11). A body of any other type answers 415; a request without a body
 * (every GET) passes without a parser being called.
 */
export function bodyParser(formPaths: ReadonlySet<string>): RequestHandler {
  // The type is decided here, once: the parsers take whatever they are handed.
  const json = express.json({ limit: BODY_LIMIT, strict: true, type: () => true, verify: refuseNul });
  const form = express.urlencoded({ limit: BODY_LIMIT, extended: false, parameterLimit: 100, type: () => true });
  return (req, res, next) => {
    if (!hasBody(req.headers)) return next();
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'application/json' || type.endsWith('+json')) return json(req, res, next);
    if (formPaths.has(req.path)) {
      if (type === FORM) return form(req, res, next);
      return next(new HttpError(415, `content type must be application/json or ${FORM}`));
    }
    next(new HttpError(415, 'content type must be application/json'));
  };
}

/** A JSON escape of U+0000 not itself escaped: an even run of backslashes, then `\u0000`. */
const ESCAPED_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/;

/**
 * PostgreSQL text cannot hold U+0000: refuse it at the door instead of failing at the
 * database. JSON can only carry it as the escape `\u0000` (a raw NUL is invalid JSON), so the
 * raw text is checked before parsing, at no cost to bodies without one (a reviver would
 * triple the cost of every parse).
 */
function refuseNul(_req: unknown, _res: unknown, raw: Buffer, charset: string): void {
  const utf8 = charset === 'utf-8' || charset === 'utf8';
  if (utf8 && !raw.includes('\\u0000')) return;
  const text = utf8 ? raw.toString('utf8') : new TextDecoder(charset).decode(raw);
  if (ESCAPED_NUL.test(text)) throw new HttpError(400, NUL_MESSAGE);
}

/** The same for the URL: a `%00` anywhere in the path or query is refused (400). */
export const refuseNulInUrl: RequestHandler = (req, _res, next) => {
  next(/%00/i.test(req.url) ? new HttpError(400, 'the URL may not contain NUL (%00) characters') : undefined);
};

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return headers['transfer-encoding'] !== undefined;
}
