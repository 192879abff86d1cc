import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AppRoute, isAppRoute } from '@ts-rest/core';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { OPENAPI_DIR, OPENAPI_FILE } from '../../scripts/openapi';
import { API_VERSIONS, type ApiVersion, contractFor } from '../src/index';
import { operationIdOf } from '../src/openapi';
import { exampleOf } from '../src/openapi-examples';

/**
 * A consumer who never uses the SDK: a client generated from the committed openapi.json by a
 * widely used third-party generator (openapi-typescript, with openapi-fetch), and a small
 * program on it that uses the named types and reads a filed claim's id from its declared
 * `Location` header. The program must type-check.
 */
const DIR = path.resolve(import.meta.dirname, '../../.tmp/generated-client');

const PROGRAM = `import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

type Order = components['schemas']['Order'];
type Claim = components['schemas']['Claim'];
type Quote = components['schemas']['Quote'];
type ClaimFile = components['schemas']['ClaimFile'];
/** The header a filed claim's id comes back in, as the document declares it. */
type FiledLocation = paths['/v1/claims/{id}']['post']['responses'][200]['headers']['Location'];

const client = createClient<paths>({ baseUrl: 'https://protection-service.invalid' });

export async function fileAndRead(token: string, order: Order, claim: ClaimFile): Promise<Claim | undefined> {
  const headers = { authorization: \`Bearer \${token}\` };
  const filed = await client.POST('/v1/claims/{id}', {
    params: { path: { id: order.sourceOrderId } },
    body: claim,
    headers,
  });
  if (filed.error) throw new Error(filed.error.message);
  const location: FiledLocation | null = filed.response.headers.get('location');
  const claimId = location?.split('/').pop();
  if (!claimId) return undefined;
  const read = await client.GET('/v1/claims/{id}', { params: { path: { id: claimId } }, headers });
  const found: Claim | undefined = read.data;
  return found;
}

export async function quote(token: string): Promise<Quote['premium'] | undefined> {
  const { data } = await client.POST('/v2/quote', {
    headers: { authorization: \`Bearer \${token}\` },
    body: {
      policyType: 'SHIPPING',
      currency: 'USD',
      orderTotal: 49.99,
      lineItems: [{ id: 'line-1', price: 49.99, quantity: 1, isShippable: true }],
    },
  });
  return data?.data.premium;
}
`;

describe('a client generated from openapi.json by a third-party generator', () => {
  it('type-checks a program that uses the named types and reads a filed claim id', async () => {
    mkdirSync(DIR, { recursive: true });
    const ast = await openapiTS(pathToFileURL(OPENAPI_FILE));
    writeFileSync(path.join(DIR, 'schema.d.ts'), astToString(ast));
    writeFileSync(path.join(DIR, 'program.ts'), PROGRAM);
    const program = ts.createProgram([path.join(DIR, 'program.ts')], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);
  }, 60_000);
});

type Schema = Record<string, any>;
interface Document {
  info: { version: string };
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
}

/**
 * The smallest value `schema` allows: only its required properties, empty arrays where no
 * items are required, the first member of a union, strings and numbers as the document's
 * examples choose them (so a value also meets the schema's patterns and bounds).
 */
function smallest(schema: Schema, components: Record<string, Schema>, key = ''): unknown {
  if (schema.$ref) return smallest(components[String(schema.$ref).split('/').pop()!]!, components, key);
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((s: Schema) => smallest(s, components, key));
    return parts.every((p: unknown) => p && typeof p === 'object' && !Array.isArray(p))
      ? Object.assign({}, ...parts)
      : parts[0];
  }
  const union = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(union)) return smallest(union[0], components, key);
  if (schema.type === 'object' || schema.properties) {
    const required = new Set<string>(schema.required ?? []);
    return Object.fromEntries(
      Object.entries((schema.properties ?? {}) as Record<string, Schema>)
        .filter(([name]) => required.has(name))
        .map(([name, property]) => [name, smallest(property, components, name)]),
    );
  }
  if (schema.type === 'array') {
    const item = smallest(schema.items ?? {}, components, key.replace(/s$/, ''));
    return Array.from({ length: schema.minItems ?? 0 }, () => item);
  }
  return exampleOf(schema, components, key);
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * One call through openapi-fetch of every operation of `doc`, sending only what the document
 * requires: the required parameters and, when the body is required, its required properties.
 * Answers the program and the operation on each line, to name a call that does not compile.
 */
function minimalCalls(doc: Document, schemaModule: string): { program: string; lines: Map<number, string> } {
  const components = doc.components.schemas;
  const lines = [
    "import createClient from 'openapi-fetch';",
    `import type { paths } from './${schemaModule}';`,
    "const client = createClient<paths>({ baseUrl: 'https://protection-service.invalid' });",
    'export const calls = [',
  ];
  const operations = new Map<number, string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const params: Record<string, Record<string, unknown>> = {};
      for (const p of (operation.parameters ?? []) as Schema[]) {
        if (!p.required) continue;
        params[p.in] ??= {};
        params[p.in]![p.name] = smallest(p.schema ?? {}, components, p.name);
      }
      const init: Record<string, unknown> = {};
      if (Object.keys(params).length) init.params = params;
      const body = operation.requestBody;
      if (body?.required) {
        const media = body.content['application/json'] ?? Object.values(body.content)[0];
        init.body = smallest(media.schema, components);
      }
      operations.set(lines.length + 1, `${method.toUpperCase()} ${path} (${operation.operationId})`);
      const args = Object.keys(init).length ? `, ${JSON.stringify(init)}` : '';
      lines.push(`  () => client.${method.toUpperCase()}(${JSON.stringify(path)}${args}),`);
    }
  }
  lines.push('];', '');
  return { program: lines.join('\n'), lines: operations };
}

/** Every published version's document: openapi.json and openapi/<version>.json, one of each content. */
function publishedDocuments(): { name: string; text: string }[] {
  const files = [OPENAPI_FILE, ...readdirSync(OPENAPI_DIR).map((f) => path.join(OPENAPI_DIR, f))].filter((f) =>
    f.endsWith('.json'),
  );
  const seen = new Set<string>();
  return files
    .map((file) => ({ name: path.relative(path.dirname(OPENAPI_FILE), file), text: readFileSync(file, 'utf8') }))
    .filter(({ text }) => !seen.has(text) && seen.add(text) !== undefined);
}

describe('clients generated from every published document (openapi-typescript, default options)', () => {
  const documents = publishedDocuments();

  it('covers openapi.json and each dated version', () => {
    const versions = documents.map((d) => (JSON.parse(d.text) as Document).info.version).sort();
    expect(versions).toEqual([...API_VERSIONS].sort());
  });

  it('accept a call of every operation with only what the document requires', async () => {
    const dir = path.join(DIR, 'minimal');
    mkdirSync(dir, { recursive: true });
    const programs: { file: string; name: string; lines: Map<number, string> }[] = [];
    for (const { name, text } of documents) {
      const doc = JSON.parse(text) as Document;
      const base = doc.info.version;
      writeFileSync(path.join(dir, `${base}.d.ts`), astToString(await openapiTS(text)));
      const { program, lines } = minimalCalls(doc, base);
      const file = path.join(dir, `calls-${base}.ts`);
      writeFileSync(file, program);
      programs.push({ file, name, lines });
    }
    const program = ts.createProgram(
      programs.map((p) => p.file),
      {
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      },
    );
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const of = programs.find((p) => p.file === d.file?.fileName);
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
      const where = of ? `${of.name}: ${of.lines.get(line) ?? `line ${line}`}` : (d.file?.fileName ?? '');
      return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
    expect(problems).toEqual([]);
    // Every operation was called.
    for (const { name, text } of documents) {
      const count = Object.values((JSON.parse(text) as Document).paths).flatMap((item) =>
        Object.keys(item).filter((m) => METHODS.includes(m)),
      ).length;
      expect(programs.find((p) => p.name === name)!.lines.size).toBe(count);
    }
  }, 120_000);

  /**
   * Rules between properties, which the document states in words: OpenAPI 3.0 could say them
   * only as an `anyOf` of `required` lists, which openapi-typescript turns into `unknown`.
   * What the smallest body then adds, and the words that must say so.
   */
  const BETWEEN_PROPERTIES: Record<string, { add: Record<string, unknown>; said: string }> = {
    createQuote: { add: { orderTotal: 49.99 }, said: 'Send orderTotal or lineItems: one of them is required' },
  };

  it('whose smallest bodies the server accepts: the document requires what the contract requires', () => {
    const refused: string[] = [];
    for (const { text } of documents) {
      const doc = JSON.parse(text) as Document;
      const version = doc.info.version as ApiVersion;
      const routes = new Map<string, AppRoute>();
      for (const [group, items] of Object.entries(contractFor(version).router as Record<string, unknown>)) {
        for (const [name, route] of Object.entries(items as Record<string, unknown>)) {
          if (isAppRoute(route as never)) routes.set(operationIdOf(`${group}.${name}`), route as AppRoute);
        }
      }
      for (const item of Object.values(doc.paths)) {
        for (const operation of Object.values(item)) {
          const body = operation.requestBody?.content?.['application/json'];
          if (!operation.requestBody?.required || !body) continue;
          const schema = (routes.get(operation.operationId) as { body?: z.ZodTypeAny } | undefined)?.body;
          const rule = BETWEEN_PROPERTIES[operation.operationId];
          if (rule) expect(JSON.stringify(doc.components.schemas)).toContain(rule.said);
          const sent = { ...(smallest(body.schema, doc.components.schemas) as object), ...rule?.add };
          const parsed = schema?.safeParse(sent);
          if (!parsed?.success)
            refused.push(`${version} ${operation.operationId}: ${parsed?.error.issues[0]?.message}`);
        }
      }
    }
    expect(refused).toEqual([]);
  });
});
