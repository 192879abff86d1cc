import type { IncomingHttpHeaders } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler } from 'express';
import { inThisRequest } from '../lib/request-context';
import { badRequest, HttpError, INCOMPLETE_BODY, MALFORMED_BODY, NUL_MESSAGE } from './errors';

declare global {
  namespace Express {
    interface Request {
      /**
       * The bytes of a JSON body as they arrived: what a tracking source's signature covers
       * (D54). Parsing and serialising again would not give them back (`136.0` reads as 136).
       */
      rawBody?: Buffer;
    }
  }
}

/** D3: JSON bodies up to 1 MiB. */
const BODY_LIMIT = 1024 * 1024;

const FORM = 'application/x-www-form-urlencoded';

/**
 * Parses JSON bodies everywhere and form bodies where `formPaths` says so (RFC 6749 token
 * and revoke endpoints, D11). A body of any other type answers 415; a request without a body
 * (every GET) passes without a parser being called. The bodies of `uploadPaths` are left
 * unread here: their route reads them once the caller is authenticated (D56, multipart.ts).
 */
export function bodyParser(
  formPaths: ReadonlySet<string>,
  uploadPaths: ReadonlySet<string> = new Set(),
): RequestHandler {
  // The type is decided here, once: the parsers take whatever they are handed.
  const json = express.json({
    limit: BODY_LIMIT,
    strict: true,
    type: () => true,
    verify: (req, _res, raw, charset) => {
      refuseNul(raw, charset);
      (req as Request).rawBody = raw;
    },
  });
  const form = express.urlencoded({ limit: BODY_LIMIT, extended: false, parameterLimit: 100, type: () => true });
  return (req, res, proceed) => {
    if (!hasBody(req.headers) || uploadPaths.has(req.path)) return proceed();
    // The body's bytes arrive in the connection's async context, not the request's: what runs
    // once it is read runs in the request's (its log lines and spans name it).
    const next = inThisRequest(proceed);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'application/json' || type.endsWith('+json')) {
      const length = plainJsonLength(req.headers);
      return length === undefined ? json(req, res, next) : readPlainJson(req, length, next);
    }
    if (formPaths.has(req.path)) {
      if (type === FORM) return form(req, res, next);
      return next(new HttpError(415, `content type must be application/json or ${FORM}`));
    }
    next(new HttpError(415, 'content type must be application/json'));
  };
}

/** `charset=utf-8` (quoted or not), the only parameter the direct path takes. */
const UTF8_PARAMETER = /^\s*charset\s*=\s*"?utf-8"?\s*$/i;

/**
 * The stated length of a JSON body that can be read directly: UTF-8 (named or not), not
 * compressed, of a stated length within the limit. That is what clients send; the rest
 * (undefined: other charsets, gzip, chunked, oversized) goes to body-parser, which answers it
 * as it always has.
 */
function plainJsonLength(headers: IncomingHttpHeaders): number | undefined {
  if (headers['content-length'] === undefined || headers['transfer-encoding'] !== undefined) return undefined;
  const length = Number(headers['content-length']);
  if (!(length <= BODY_LIMIT)) return undefined;
  const encoding = headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return undefined;
  const contentType = headers['content-type'] ?? '';
  const semicolon = contentType.indexOf(';');
  return semicolon === -1 || UTF8_PARAMETER.test(contentType.slice(semicolon + 1)) ? length : undefined;
}

/** JSON's whitespace, then the first character of the text (body-parser's `strict`). */
const FIRST_CHARACTER = /^[ \t\n\r]*([^ \t\n\r])/;

/**
 * The direct path of a plain JSON body, with body-parser's answers: a top-level object or
 * array only (strict), a UTF-8 byte order mark ignored, NUL refused, malformed or
 * incomplete text 400. It exists for speed: on a small body body-parser's general
 * machinery (charset decoding, inflation, async-hook bookkeeping) cost more than the parse
 * (`pnpm bench partner`, POST /v2/quote).
 */
function readPlainJson(req: Request, length: number, next: NextFunction): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const settle = (err?: unknown) => {
    if (settled) return;
    settled = true;
    next(err);
  };
  req.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    received += chunk.length;
  });
  req.on('aborted', () => settle(badRequest(INCOMPLETE_BODY)));
  req.on('error', () => settle(badRequest(INCOMPLETE_BODY)));
  req.on('end', () => {
    if (received !== length) return settle(badRequest(INCOMPLETE_BODY));
    try {
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      req.rawBody = raw;
      req.body = parseStrict(raw);
      settle();
    } catch (err) {
      settle(err);
    }
  });
}

function parseStrict(raw: Buffer): unknown {
  refuseNul(raw, 'utf-8');
  const bom = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
  const text = raw.toString('utf8', bom ? 3 : 0);
  const first = FIRST_CHARACTER.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw badRequest(MALFORMED_BODY);
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(MALFORMED_BODY);
  }
}

/** A JSON escape of U+0000 not itself escaped: an even run of backslashes, then `\u0000`. */
const ESCAPED_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/;

/**
 * PostgreSQL text cannot hold U+0000: refuse it at the door instead of failing at the
 * database. JSON can only carry it as the escape `\u0000` (a raw NUL is invalid JSON), so the
 * raw text is checked before parsing, at no cost to bodies without one (a reviver would
 * triple the cost of every parse).
 */
function refuseNul(raw: Buffer, charset: string): void {
  const utf8 = charset === 'utf-8' || charset === 'utf8';
  if (utf8 && !raw.includes('\\u0000')) return;
  const text = utf8 ? raw.toString('utf8') : new TextDecoder(charset).decode(raw);
  if (ESCAPED_NUL.test(text)) throw new HttpError(400, NUL_MESSAGE);
}

/** The same for the URL: a `%00` anywhere in the path or query is refused (400). */
export const refuseNulInUrl: RequestHandler = (req, _res, next) => {
  next(/%00/i.test(req.url) ? new HttpError(400, 'the URL may not contain NUL (%00) characters') : undefined);
};

function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return headers['transfer-encoding'] !== undefined;
}
