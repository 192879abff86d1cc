import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { openapiSchemaToJsonSchema } from '@openapi-contrib/openapi-schema-to-json-schema';
import { isApiVersion, LATEST_API_VERSION } from '@protection-service/contract';
import type { ValidateFunction } from 'ajv';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { compilePaths } from '../../src/http/unmatched';
import { PAGE_ROUTES } from '../../src/pages/index';

/**
 * Every answer the test servers give is checked against the committed `openapi.json` by a
 * third-party validator (the OpenAPI 3.0 schemas converted to JSON Schema, checked by Ajv),
 * not against the zod schemas it was generated from: what a strict client generated from the
 * document would accept is what counts. Test servers record each answer the document does not
 * describe; the run's teardown fails the run on any (server/test/harness/global-setup.ts).
 */

const DOCUMENT = path.resolve(import.meta.dirname, '../../../openapi.json');
/** D44: the committed document of each older version; an answer is checked against the one its `Api-Version` names. */
const documentOf = (version: string) => path.resolve(import.meta.dirname, `../../../openapi/${version}.json`);
const ROOT_ID = 'https://protection-service.invalid/openapi.json';

/**
 * Answers outside every operation of the document: operational endpoints (health, the
 * document itself and its reference page), CORS preflights (answered from the contract), and
 * the human pages that are not part of the JSON API.
 */
const OUTSIDE_THE_DOCUMENT = [
  /^\/(healthz|readyz|openapi\.json|metrics)$/,
  /^\/openapi\/[^/]+\.json$/,
  /^\/docs(\/.*)?$/,
  // The merchant dashboard's pages (D50), any address under it: HTML, not the API.
  /^\/dashboard(\/.*)?$/,
  // The storefront script (D55) and its demo page (development installs): JavaScript and HTML, not the API.
  /^\/widget\/v1\/offer(\.[0-9a-f]{16})?\.js$/,
  /^\/demo\/storefront$/,
];
/** The HTML pages (D40, D41), by method: `POST /v1/oauth/authorize` is the contract's JSON route. */
const PAGES = PAGE_ROUTES.map((r) => ({ method: r.method, regex: compilePaths([r])[0]!.regex }));
const isPage = (method: string, pathname: string) => PAGES.some((p) => p.method === method && p.regex.test(pathname));

interface Operation {
  method: string;
  pattern: RegExp;
  template: string;
  responses: Record<string, { content?: Record<string, { schema?: unknown }>; headers?: Record<string, unknown> }>;
}

export interface Answer {
  method: string;
  url: string;
  status: number;
  contentType: string | undefined;
  body: Buffer;
  /** The names of the headers sent, any case; unchecked when absent. */
  headers?: string[];
}

/** Checks answers against one OpenAPI document; `check` says what is wrong, or undefined. */
export class AnswerChecker {
  private readonly ajv = new Ajv({ strict: false, allErrors: false });
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();
  /**
   * The response headers the document declares as components (lower case): the headers a
   * client relies on. An answer carrying one its operation and status do not declare is refused.
   */
  private readonly relied: Set<string>;

  constructor(document: Record<string, any> = JSON.parse(readFileSync(DOCUMENT, 'utf8'))) {
    addFormats(this.ajv);
    this.relied = new Set(Object.keys(document.components?.headers ?? {}).map((h) => h.toLowerCase()));
    const schemas = Object.fromEntries(
      Object.entries((document.components?.schemas ?? {}) as Record<string, unknown>).map(([name, s]) => [
        name,
        toJsonSchema(s),
      ]),
    );
    this.ajv.addSchema({ components: { schemas } }, ROOT_ID);
    for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      // Literal segments are tried before parameters, as the server does (`/v1/claims/offline`).
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, op] of Object.entries(item)) {
        this.operations.push({ method: method.toUpperCase(), pattern, template, responses: op.responses ?? {} });
      }
    }
    this.operations.sort((a, b) => paramCount(a.template) - paramCount(b.template));
  }

  check(answer: Answer): string | undefined {
    const { pathname } = new URL(answer.url, 'http://test.invalid');
    const method = answer.method === 'HEAD' ? 'GET' : answer.method;
    const where = `${answer.method} ${pathname} → ${answer.status}`;
    if (method === 'OPTIONS' || OUTSIDE_THE_DOCUMENT.some((p) => p.test(pathname)) || isPage(method, pathname)) {
      return undefined;
    }
    const op = this.operations.find((o) => o.method === method && o.pattern.test(pathname));
    if (!op) {
      // No operation has this method and path: only a D2 error can answer it. On the path of
      // a public operation it carries that operation's CORS headers, as every answer there does
      // (D47).
      if (answer.status < 400) return `${where}: a success for a request no operation describes`;
      const cors = Object.fromEntries(
        this.operations
          .filter((o) => o.pattern.test(pathname))
          .flatMap((o) => Object.values(o.responses).flatMap((r) => Object.keys(r.headers ?? {})))
          .filter((h) => h.toLowerCase().startsWith('access-control-'))
          .map((h) => [h, {}]),
      );
      return (
        this.headers(where, answer, { 'x-request-id': {}, ...cors }) ??
        this.body(where, answer, { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } })
      );
    }
    const response = op.responses[String(answer.status)] ?? op.responses.default;
    if (!response) return `${where}: status ${answer.status} is not documented for ${method} ${op.template}`;
    return (
      this.headers(where, answer, response.headers ?? {}) ??
      this.body(where, answer, response.content, `${method} ${op.template} ${answer.status}`)
    );
  }

  /** The relied-on headers of the answer that the document does not declare for it. */
  private headers(where: string, answer: Answer, declared: Record<string, unknown>): string | undefined {
    const names = new Set(Object.keys(declared).map((h) => h.toLowerCase()));
    const undeclared = (answer.headers ?? [])
      .map((h) => h.toLowerCase())
      .filter((h) => this.relied.has(h) && !names.has(h));
    return undeclared.length ? `${where}: header ${[...new Set(undeclared)].join(', ')} not declared` : undefined;
  }

  private body(
    where: string,
    answer: Answer,
    content: Record<string, { schema?: unknown }> | undefined,
    key = 'no-operation',
  ): string | undefined {
    if (!content || Object.keys(content).length === 0) {
      return answer.body.length === 0 || answer.method === 'HEAD'
        ? undefined
        : `${where}: a body where none is documented`;
    }
    const mediaType = answer.contentType?.split(';')[0]?.trim().toLowerCase();
    const described = mediaType ? content[mediaType] : undefined;
    if (!described) return `${where}: content type ${mediaType ?? '(none)'} is not documented`;
    if (answer.method === 'HEAD' || !described.schema) return undefined;
    // Bytes (D56's stored files): the documented type is all there is to check.
    if ((described.schema as { format?: string }).format === 'binary') return undefined;
    let value: unknown;
    // A text answer (D52's CSV) is checked as the string it is.
    if (mediaType?.startsWith('text/')) value = answer.body.toString('utf8');
    else
      try {
        value = JSON.parse(answer.body.toString('utf8'));
      } catch {
        return `${where}: the body is not JSON`;
      }
    const validate = this.validator(`${key} ${mediaType}`, described.schema);
    if (validate(value)) return undefined;
    const detail = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    return `${where}: the body does not match the document: ${detail}`;
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      const converted = JSON.stringify(toJsonSchema(schema)).replaceAll('"#/components/', `"${ROOT_ID}#/components/`);
      validate = this.ajv.compile(JSON.parse(converted));
      this.validators.set(key, validate);
    }
    return validate;
  }
}

function toJsonSchema(schema: unknown): Record<string, unknown> {
  // Draft 4 is what the converter writes (boolean exclusiveMinimum, as OpenAPI 3.0 has it).
  const { $schema: _draft, ...converted } = openapiSchemaToJsonSchema(schema as object, {
    cloneSchema: true,
  }) as Record<string, unknown>;
  return converted;
}

function paramCount(template: string): number {
  return (template.match(/\{/g) ?? []).length;
}

/** One checker per document: the latest's (`openapi.json`) and each older version's, made when first needed. */
const checkers = new Map<string, AnswerChecker>();

/** The checker of the document of the version an answer names in `Api-Version` (the latest without one). */
function checkerFor(version: string | undefined): AnswerChecker {
  const key = version && version !== LATEST_API_VERSION && isApiVersion(version) ? version : LATEST_API_VERSION;
  let checker = checkers.get(key);
  if (!checker) {
    const file = key === LATEST_API_VERSION ? DOCUMENT : documentOf(key);
    checker = new AnswerChecker(JSON.parse(readFileSync(file, 'utf8')));
    checkers.set(key, checker);
  }
  return checker;
}

/**
 * Wraps a request listener so that each answer, once sent, is checked; what the document does
 * not describe is appended to a file of `dir` (one per worker), which the run's teardown reads.
 */
export function checkingAnswers(
  dir: string,
  listener: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${process.pid}-${threadId}.log`);
  return (req, res) => {
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding: unknown) => {
      if (typeof chunk === 'string')
        chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    const { write, end } = res;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      keep(chunk, rest[0]);
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (typeof chunk !== 'function') keep(chunk, rest[0]);
      return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as typeof res.end;
    res.on('finish', () => {
      const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/';
      let problem: string | undefined;
      try {
        const version = res.getHeader('api-version');
        problem = checkerFor(typeof version === 'string' ? version : undefined).check({
          method: req.method ?? 'GET',
          url,
          status: res.statusCode,
          contentType: sentContentType(res),
          body: Buffer.concat(chunks),
          headers: sentHeaderNames(res),
        });
      } catch (error) {
        problem = `${req.method} ${url}: the answer could not be checked: ${error}`;
      }
      appendFileSync(file, `${problem ? `UNDESCRIBED ${problem}` : 'ok'}\n`);
    });
    listener(req, res);
  };
}

/** The answer's content type, also when it was passed to `writeHead` (which getHeader does not see). */
function sentContentType(res: ServerResponse): string | undefined {
  const set = res.getHeader('content-type');
  if (typeof set === 'string') return set;
  const head = (res as unknown as { _header?: string })._header ?? '';
  return /^content-type:\s*(.+?)\r?$/im.exec(head)?.[1];
}

/** The names of the headers sent, also those passed to `writeHead`. */
function sentHeaderNames(res: ServerResponse): string[] {
  const head = (res as unknown as { _header?: string })._header ?? '';
  const sent = [...head.matchAll(/^([!#$%&'*+.^_`|~0-9A-Za-z-]+):/gm)].map((m) => m[1]!);
  return [...new Set([...sent, ...res.getHeaderNames()])];
}

/** Counts the run's checked answers and fails the run (exit code) on any the document does not describe. */
export function reportUndescribedAnswers(dir: string): void {
  let checked = 0;
  const problems: string[] = [];
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
      if (!line) continue;
      checked++;
      if (line.startsWith('UNDESCRIBED ')) problems.push(line.slice('UNDESCRIBED '.length));
    }
  }
  process.stdout.write(
    `[harness] OpenAPI answers: ${checked} answers checked against the document of their version, ${problems.length} not described\n`,
  );
  if (problems.length) {
    const distinct = [...new Set(problems)];
    // A teardown's exception is only logged by vitest: the exit code is what fails the run.
    process.stderr.write(`[harness] FAILED: answers openapi.json does not describe:\n  ${distinct.join('\n  ')}\n`);
    process.exitCode = 1;
  }
}
