/**
 * `pnpm sdk-types` writes `sdk/src/generated/client.ts` from the contract: one named type per
 * contract schema a route uses, and the `Client` interface, one method per route with its
 * request and response types spelt out. `pnpm sdk-types --check` fails when the committed file
 * differs from a fresh generation (the SDK test suite checks it too).
 *
 * Why: the SDK's public declarations used to be `InitClientReturn<typeof contract>`, which
 * makes every consumer's compiler expand ts-rest's generics over zod's for all 63 routes
 * (about 14 s and 630 MB for a trivial file). Plain interfaces cost the compiler next to
 * nothing, and read better in an editor. The runtime still uses the contract's route objects.
 *
 * Types follow what crosses the wire from the caller's side:
 * - request bodies and path parameters: what the server accepts (zod's input type);
 * - query parameters: what they mean (`first` is a number, as the server parses it), the SDK
 *   writes them into the query string; optional when the server has a default;
 * - response bodies: what the server answers (zod's output type).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as contractModule from '@protection-service/contract';
import { writeOrCheck } from './generated-file';

export const SDK_TYPES_FILE = path.resolve(import.meta.dirname, '../sdk/src/generated/client.ts');
/** The types of an older dated version (D44): `sdk/src/generated/<version>.ts`. */
export const sdkTypesFileOf = (version: contractModule.ApiVersion) =>
  version === contractModule.LATEST_API_VERSION
    ? SDK_TYPES_FILE
    : path.resolve(import.meta.dirname, `../sdk/src/generated/${version}.ts`);
const ROUTES_DIR = path.resolve(import.meta.dirname, '../contract/src/routes');

type Mode = 'input' | 'output' | 'query';

/** Contract schemas the SDK answers outside of routes. */
/** The file part of an upload and a file's bytes (D56): `Blob` in the SDK's types. */
const BLOBS = new Set([contractModule.ZBlob, contractModule.ZFileBytes] as unknown as Schema[]);

const EXTRA_OUTPUTS = [contractModule.ZWebhookEvent as unknown as Schema];

/**
 * zod 3 schemas and ts-rest routes, read structurally at run time (this package depends on
 * neither library; the contract brings both).
 */
type Def = Record<string, any> & { typeName: string };
interface Schema {
  _def: Def;
  description?: string;
  shape?: Record<string, Schema>;
}
interface AppRoute {
  method: string;
  path: string;
  pathParams?: Schema;
  query?: Schema;
  body?: Schema | symbol;
  headers?: Schema;
  responses: Record<string, Schema | symbol>;
  summary?: string;
  description?: string;
}
const defOf = (schema: Schema): Def => schema._def;
const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && typeof (value as Schema)._def?.typeName === 'string';
const isRoute = (value: unknown): value is AppRoute =>
  typeof value === 'object' && value !== null && 'method' in value && 'path' in value && 'responses' in value;
/** ts-rest's `c.noBody()` is a symbol. */
const isNoBody = (value: unknown): value is symbol => typeof value === 'symbol';

const PRIMITIVE = /^(string|number|boolean|null|undefined|unknown|never|void|bigint|true|false|'[^']*'|-?\d[\d.e+-]*)$/;

class Generator {
  /** Schema object -> its exported name in the contract (`ZClaim` -> `Claim`). */
  readonly #names = new Map<Schema, string>();
  /** `${mode}:${name}` -> the emitted type name. */
  readonly #emitted = new Map<string, string>();
  /** Emitted type name -> its text. */
  readonly #taken = new Map<string, string>();
  readonly #declarations: string[] = [];
  /** Enum values (joined) -> a name from the contract's constant lists (`SCOPES` -> `Scope`). */
  readonly #enumNames = new Map<string, string>();

  constructor(named: [string, unknown][]) {
    // Sorted, so that a schema exported under two names always gets the same one.
    for (const [name, value] of [...named].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (/^[A-Z][A-Z_]+S$/.test(name) && Array.isArray(value) && value.every((v) => typeof v === 'string')) {
        const singular = name
          .slice(0, -1)
          .toLowerCase()
          .replace(/(^|_)(\w)/g, (_, __, c: string) => c.toUpperCase());
        if (!this.#enumNames.has(value.join('|'))) this.#enumNames.set(value.join('|'), singular);
      }
      if (/^Z[A-Z]/.test(name) && isSchema(value) && !this.#names.has(value)) {
        this.#names.set(value, name.slice(1));
      }
    }
  }

  get declarations(): string {
    return this.#declarations.join('\n\n');
  }

  /** The type of `schema` as TypeScript, a named reference where the contract names it. */
  type(schema: Schema, mode: Mode, indent = ''): string {
    const name = this.#names.get(schema);
    if (name === undefined) return this.#inline(schema, mode, indent);
    const text = this.#inline(schema, mode, '');
    if (PRIMITIVE.test(text) || /^(string|number|boolean)\[\]$/.test(text)) return text;
    return this.#declare(name, schema, mode, text);
  }

  /**
   * `TClaim` for the type a name means (the output, or the input of a `…Input` schema, the
   * query of a `…Query` one), and for any mode whose type is the same; `TClaimInput`,
   * `TClaimQuery` or `TClaimOutput` for a mode whose type differs.
   */
  #declare(name: string, schema: Schema, mode: Mode, text: string): string {
    const key = `${mode}:${name}`;
    const known = this.#emitted.get(key);
    if (known) return known;
    const main: Mode = name.endsWith('Input') ? 'input' : name.endsWith('Query') ? 'query' : 'output';
    const same = mode === main || this.#inline(schema, main, '') === text;
    // The output of `PriceRuleInput` is a `TPriceRule` when the contract has that type already.
    const base = same ? name : name.replace(/(Input|Query)$/, '');
    let typeName = `T${base}`;
    if (!same && this.#taken.get(typeName) !== text) typeName = `T${base}${pascal(mode)}`;
    this.#emitted.set(key, typeName);
    const taken = this.#taken.get(typeName);
    if (taken === text) return typeName;
    if (taken !== undefined) throw new Error(`sdk-types: two different types named ${typeName}`);
    this.#taken.set(typeName, text);
    const doc = jsdoc(schema.description, '');
    const isObject = text.startsWith('{') && wrap(text) === text;
    this.#declarations.push(
      `${doc}${isObject ? `export interface ${typeName} ${text}` : `export type ${typeName} = ${text};`}`,
    );
    return typeName;
  }

  /** Whether an object key holding `schema` is optional in this mode. */
  optional(schema: Schema, mode: Mode): boolean {
    if (BLOBS.has(schema)) return false;
    const def = defOf(schema);
    switch (def.typeName) {
      case 'ZodOptional':
      case 'ZodAny':
      case 'ZodUnknown':
      case 'ZodUndefined':
      case 'ZodVoid':
        return true;
      case 'ZodDefault':
        return mode !== 'output';
      case 'ZodNullable':
      case 'ZodBranded':
      case 'ZodReadonly':
      case 'ZodCatch':
        return this.optional(def.innerType ?? def.type, mode);
      case 'ZodEffects':
        return mode !== 'output' || def.effect.type !== 'transform' ? this.optional(def.schema, mode) : false;
      case 'ZodPipeline':
        return this.optional(mode === 'output' ? def.out : def.in, mode);
      default:
        return false;
    }
  }

  #inline(schema: Schema, mode: Mode, indent: string): string {
    // D56: a file part, which zod can only check at run time.
    if (BLOBS.has(schema)) return 'Blob';
    const def = defOf(schema);
    const inner = (s: Schema) => this.type(s, mode, indent);
    switch (def.typeName) {
      case 'ZodString':
        return 'string';
      case 'ZodNumber':
        return 'number';
      case 'ZodBigInt':
        return 'bigint';
      case 'ZodBoolean':
        return 'boolean';
      case 'ZodDate':
        return 'Date';
      case 'ZodNull':
        return 'null';
      case 'ZodUndefined':
        return 'undefined';
      case 'ZodVoid':
        return 'void';
      case 'ZodAny':
      case 'ZodUnknown':
        return 'unknown';
      case 'ZodNever':
        return 'never';
      case 'ZodLiteral':
        return literal(def.value);
      case 'ZodEnum': {
        const text = (def.values as string[]).map(literal).join(' | ');
        const name = this.#enumNames.get((def.values as string[]).join('|'));
        return name && this.#names.get(schema) === undefined ? this.#declare(name, schema, mode, text) : text;
      }
      case 'ZodNativeEnum':
        return [...new Set(Object.values(def.values as object))].map(literal).join(' | ');
      case 'ZodOptional':
        return inner(def.innerType);
      case 'ZodDefault':
      case 'ZodBranded':
      case 'ZodReadonly':
      case 'ZodCatch':
        return inner(def.innerType ?? def.type);
      case 'ZodNullable':
        return `${wrap(inner(def.innerType))} | null`;
      case 'ZodArray':
        return `${wrap(inner(def.type))}[]`;
      case 'ZodTuple': {
        const items = (def.items as Schema[]).map(inner);
        if (def.rest) items.push(`...${wrap(inner(def.rest))}[]`);
        return `[${items.join(', ')}]`;
      }
      case 'ZodRecord':
        return `Record<${inner(def.keyType)}, ${inner(def.valueType)}>`;
      case 'ZodUnion':
      case 'ZodDiscriminatedUnion':
        return [...new Set((def.options as Schema[]).map(inner))].join(' | ');
      case 'ZodIntersection':
        return `${wrap(inner(def.left))} & ${wrap(inner(def.right))}`;
      case 'ZodLazy':
        return inner(def.getter());
      case 'ZodPipeline':
        return inner(mode === 'input' ? def.in : def.out);
      case 'ZodEffects':
        if (def.effect.type !== 'transform' || mode === 'input') return inner(def.schema);
        return this.#transformed(def, mode, indent);
      case 'ZodObject':
        return this.#object(schema as Schema, mode, indent);
      default:
        throw new Error(`sdk-types: no TypeScript type for ${def.typeName}`);
    }
  }

  /**
   * A transform's output type cannot be read from the schema, so it is observed: the transform
   * runs on each value an enum allows (giving the exact literals), or on a sample string.
   */
  #transformed(def: Def, mode: Mode, indent: string): string {
    const source = def.schema as Schema;
    const run = (value: unknown): unknown => def.effect.transform(value, { addIssue() {}, path: [] });
    const sourceDef = defOf(source);
    if (sourceDef.typeName === 'ZodEnum') {
      return [...new Set((sourceDef.values as string[]).map((v) => literal(run(v))))].join(' | ');
    }
    const sample = run('1');
    if (typeof sample === 'number' || typeof sample === 'boolean') return typeof sample;
    if (typeof sample === 'string') return this.type(source, mode, indent);
    throw new Error(`sdk-types: cannot tell the output type of a transform of ${sourceDef.typeName}`);
  }

  #object(schema: Schema, mode: Mode, indent: string): string {
    const def = defOf(schema);
    const inner = `${indent}  `;
    const lines = Object.entries(schema.shape as Record<string, Schema>).map(([key, value]) => {
      const doc = jsdoc(value.description, inner);
      const q = this.optional(value, mode) ? '?' : '';
      return `${doc}${inner}${propertyKey(key)}${q}: ${this.type(value, mode, inner)};`;
    });
    const catchall = defOf(def.catchall as Schema);
    if (catchall.typeName !== 'ZodNever') {
      lines.push(`${inner}[key: string]: ${this.type(def.catchall, mode, inner)};`);
    } else if (def.unknownKeys === 'passthrough') {
      lines.push(`${inner}[key: string]: unknown;`);
    }
    return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : '{}';
  }
}

const literal = (value: unknown): string =>
  typeof value === 'string' ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(value);
/** Parenthesised when a union or intersection at its top level would bind wrongly (`(A | B)[]`). */
function wrap(text: string): string {
  let depth = 0;
  let quoted = false;
  for (const ch of text.replace(/\/\*\*[\s\S]*?\*\//g, '')) {
    if (ch === "'") quoted = !quoted;
    else if (quoted) continue;
    else if ('{([<'.includes(ch)) depth++;
    else if ('})]>'.includes(ch)) depth--;
    else if (depth === 0 && (ch === '|' || ch === '&')) return `(${text})`;
  }
  return text;
}
const propertyKey = (key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : `'${key}'`);

function jsdoc(text: string | undefined, indent: string): string {
  if (!text) return '';
  const lines = text.replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The route's arguments object: `{ params, query, body, headers, fetchOptions }`. */
function argsType(gen: Generator, route: AppRoute): { text: string; required: boolean } {
  const fields: string[] = [];
  let required = false;
  const pathParams = route.pathParams as Schema | undefined;
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  if (names.length) {
    const shape = pathParams ? ((pathParams as Schema).shape as Record<string, Schema>) : {};
    const entries = names.map((n) => `      ${n}: ${shape[n] ? gen.type(shape[n], 'input', '      ') : 'string'};`);
    fields.push(`    /** Path parameters. */\n    params: {\n${entries.join('\n')}\n    };`);
    required = true;
  }
  if (route.query) {
    const query = route.query as Schema;
    const type = gen.type(query, 'query', '    ');
    const needed = !objectAllOptional(gen, query, 'query');
    fields.push(
      `    /** Query parameters; the SDK writes numbers and booleans into the query string. */\n    query${needed ? '' : '?'}: ${type};`,
    );
    required ||= needed;
  }
  if (route.method !== 'GET' && 'body' in route && route.body !== undefined && !isNoBody(route.body)) {
    const body = route.body as Schema;
    // A body the route may go without (`.optional()`, as the rotation of a client secret, D45).
    const optional = defOf(body).typeName === 'ZodOptional';
    const inner = optional ? (defOf(body).innerType as Schema) : body;
    fields.push(`    body${optional ? '?' : ''}: ${gen.type(inner, 'input', '    ')};`);
    required ||= !optional;
  }
  // ts-rest leaves `{}` (not a schema) on routes that declare no headers.
  const declared = isSchema(route.headers) ? route.headers.shape : {};
  const headerLines = Object.entries(declared as Record<string, Schema>).map(
    ([key, value]) => `${jsdoc(value.description, '      ')}      ${propertyKey(key)}?: string;`,
  );
  fields.push(
    "    /** Extra request headers (lower case), on top of the client's. */\n" +
      `    headers?: {\n${[...headerLines, '      [name: string]: string | undefined;'].join('\n')}\n    };`,
  );
  fields.push('    /** Passed to fetch, for example `{ signal }`. */\n    fetchOptions?: RequestInit;');
  return { text: `{\n${fields.join('\n')}\n  }`, required };
}

function objectAllOptional(gen: Generator, schema: Schema, mode: Mode): boolean {
  let s = schema;
  while (defOf(s).typeName === 'ZodEffects') s = defOf(s).schema;
  if (defOf(s).typeName !== 'ZodObject') return gen.optional(schema, mode);
  return Object.values((s as Schema).shape as Record<string, Schema>).every((v) => gen.optional(v, mode));
}

function responseType(gen: Generator, route: AppRoute): string {
  const byBody = new Map<string, string[]>();
  for (const [status, answer] of Object.entries(route.responses)) {
    // A body that is not JSON (D52's CSV) is declared with its content type; its type is its body's.
    const schema =
      typeof answer === 'object' && answer !== null && 'contentType' in answer
        ? (answer as unknown as { body: Schema }).body
        : answer;
    const body = isNoBody(schema) ? 'undefined' : gen.type(schema as Schema, 'output', '  ');
    byBody.set(body, [...(byBody.get(body) ?? []), status]);
  }
  return [...byBody].map(([body, statuses]) => `Reply<${statuses.join(' | ')}, ${body}>`).join(' | ');
}

/** A call of the group's first read (or first route), for the group's JSDoc example. */
function exampleCall(group: string, routes: Record<string, AppRoute>): string {
  const [name, route] = Object.entries(routes).find(([, r]) => r.method === 'GET') ?? Object.entries(routes)[0]!;
  const parts: string[] = [];
  const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  if (params.length) parts.push(`params: { ${params.join(', ')} }`);
  if (route.method !== 'GET' && route.body !== undefined && !isNoBody(route.body)) parts.push('body');
  const ok = Object.keys(route.responses).find((s) => s.startsWith('2')) ?? '200';
  return [
    ` * const res = await client.${group}.${name}(${parts.length ? `{ ${parts.join(', ')} }` : ''});`,
    ` * if (res.status === ${ok}) console.log(res.body);`,
  ].join('\n');
}

function operationDoc(route: AppRoute): string {
  const lines = [`${route.summary ?? ''} — \`${route.method} ${route.path}\``];
  if (route.description) lines.push('', ...wrapText(route.description, 92));
  return `  /**\n${lines.map((l) => `   * ${l}`.trimEnd()).join('\n')}\n   */\n`;
}

function wrapText(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + word.length + 1 > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

const HEADER = `// Generated by scripts/sdk-types.ts from the contract: do not edit. Run \`pnpm sdk-types\`.
//
// The SDK's public types: plain interfaces, cheap for a consumer's compiler. The contract's
// zod schemas and ts-rest's generic types stay out of the published declarations.

/**
 * One answer of a call: the status, the body typed for that status, and the headers.
 *
 * @example
 * const res = await client.claims.get({ params: { claimId } });
 * if (res.status === 200) console.log(res.body.claimState);
 */
export interface Reply<S extends number, B> {
  status: S;
  body: B;
  headers: Headers;
}`;

export async function renderSdkTypes(
  version: contractModule.ApiVersion = contractModule.LATEST_API_VERSION,
): Promise<string> {
  const named: [string, unknown][] = Object.entries(contractModule);
  for (const file of readdirSync(ROUTES_DIR).sort()) {
    named.push(...Object.entries(await import(pathToFileURL(path.join(ROUTES_DIR, file)).href)));
  }
  const gen = new Generator(named);
  const groups: string[] = [];
  const members: string[] = [];
  // D44: an older version's routes are the contract's with its version changes applied.
  const contract =
    version === contractModule.LATEST_API_VERSION
      ? contractModule.contract
      : contractModule.contractFor(version).router;
  for (const [group, router] of Object.entries(contract)) {
    const methods: string[] = [];
    for (const [name, route] of Object.entries(router as Record<string, unknown>)) {
      if (!isRoute(route)) throw new Error(`sdk-types: ${group}.${name} is not a route`);
      const args = argsType(gen, route);
      methods.push(
        `${operationDoc(route)}  ${name}(args${args.required ? '' : '?'}: ${args.text}): Promise<${responseType(gen, route)}>;`,
      );
    }
    const iface = `${pascal(group)}Routes`;
    const example = exampleCall(group, router as Record<string, AppRoute>);
    groups.push(
      `/**\n * The \`${group}\` routes: \`client.${group}.<operation>(…)\`.\n *\n * @example\n${example}\n */\n` +
        `export interface ${iface} {\n${methods.join('\n')}\n}`,
    );
    members.push(`  ${group}: ${iface};`);
  }
  // Not a route body, but what the SDK's webhook verification answers.
  for (const schema of EXTRA_OUTPUTS) gen.type(schema, 'output');
  const versionNote =
    version === contractModule.LATEST_API_VERSION
      ? ''
      : `\n *\n * Typed for API version ${version}: made by \`createClient\` of \`@protection-service/sdk/versions/${version}\`,\n * which sends \`Api-Version: ${version}\`.`;
  const client = `/**
 * Every route of the API, grouped as in the contract: \`client.<group>.<operation>(args)\`.
 * Made by \`createClient\`.${versionNote}
 *
 * @example
 * const client = createClient({ baseUrl: 'https://api.example.com', accessToken });
 * const res = await client.orders.get({ params: { sourceOrderId: '1001' } });
 */
export interface Client {
${members.join('\n')}
}`;
  return `${[HEADER, gen.declarations, ...groups, client].join('\n\n')}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  for (const version of contractModule.API_VERSIONS) {
    writeOrCheck(sdkTypesFileOf(version), await renderSdkTypes(version), 'pnpm sdk-types');
  }
}
