/**
 * A code sample for every operation of the document (`x-codeSamples`, which the reference
 * page shows beside the operation): the request with curl, and the same call with the
 * TypeScript SDK, whose method is the contract's router key (`client.orders.upsert`). Both
 * are filled in with the operation's examples, so a sample is a request the server accepts.
 */
import { type AppRoute, isAppRoute } from '@ts-rest/core';
import { exampleOf } from './openapi-examples';

type Schema = Record<string, any>;

interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** What each kind of authentication adds to a curl command (the variables are the reader's). */
const CURL_AUTH: Record<string, string[]> = {
  public: [],
  client: ['-u "$CLIENT_ID:$CLIENT_SECRET"'],
  dashboard: ['-H "Authorization: Bearer $DASHBOARD_TOKEN"'],
  token: ['-H "Authorization: Bearer $ACCESS_TOKEN"'],
};

/**
 * The contract's router keys (`orders.upsert`) of every route, by the operationId the document
 * gives it: the SDK's method of an operation is `client.<group>.<name>`.
 */
export function routerKeys(
  router: Record<string, unknown>,
  operationIdOf: (key: string) => string,
): Map<string, RouterKey> {
  const keys = new Map<string, RouterKey>();
  for (const [group, routes] of Object.entries(router)) {
    for (const [name, route] of Object.entries(routes as Record<string, unknown>)) {
      if (!isAppRoute(route as never)) continue;
      const params = [...(route as AppRoute).path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      keys.set(operationIdOf(`${group}.${name}`), { key: `${group}.${name}`, params });
    }
  }
  return keys;
}

/** A route's key in the contract's router and the names of its path parameters there, in order. */
interface RouterKey {
  key: string;
  params: string[];
}

/** Sets `x-codeSamples` on every operation of `doc` (after its examples are set). */
export function withCodeSamples(doc: Schema, keys: Map<string, RouterKey>): void {
  const components = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, operation] of Object.entries(item)) {
      const route = keys.get(operation.operationId);
      if (!route) throw new Error(`${method.toUpperCase()} ${path}: no contract route for ${operation.operationId}`);
      operation['x-codeSamples'] = codeSamples(method, path, operation, route, components);
    }
  }
}

function codeSamples(
  method: string,
  path: string,
  operation: Schema,
  { key, params }: RouterKey,
  components: Record<string, Schema>,
): CodeSample[] {
  const parameters = (operation.parameters ?? []) as Schema[];
  const exampleValue = (p: Schema) => p.example ?? exampleOf(p.schema ?? {}, components, p.name);
  const pathValues = Object.fromEntries(
    parameters.filter((p) => p.in === 'path').map((p) => [p.name, exampleValue(p)]),
  );
  const query = Object.fromEntries(
    parameters.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, exampleValue(p)]),
  );
  const body = operation.requestBody?.content?.['application/json']?.example;
  const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathValues[name])));
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();

  const curl = [
    `curl${method === 'get' ? '' : ` -X ${method.toUpperCase()}`} "$BASE_URL${url}${search ? `?${search}` : ''}"`,
  ];
  // Client credentials go in the body or as HTTP Basic, never both: a body naming them is enough.
  const inBody = body && typeof body === 'object' && 'client_id' in body;
  if (!inBody) curl.push(...(CURL_AUTH[operation['x-auth']] ?? []));
  if (body !== undefined) {
    curl.push('-H "Content-Type: application/json"');
    curl.push(`-d '${JSON.stringify(body, null, 2).replaceAll("'", "'\\''")}'`);
  }
  const form = multipartSample(operation);
  if (form) curl.push(...form.curl);

  const args: string[] = [];
  // The SDK names path parameters as the contract does: a path the document merged
  // (`/v1/claims/{id}`) has the route's own name for its `id` there.
  const documentParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const sdkParams = Object.fromEntries(documentParams.map((name, i) => [params[i] ?? name, pathValues[name]]));
  if (Object.keys(sdkParams).length) args.push(`params: ${literal(sdkParams, 1)}`);
  if (Object.keys(query).length) args.push(`query: ${literal(query, 1)}`);
  if (body !== undefined) args.push(`body: ${literal(body, 1)}`);
  if (form) args.push(`body: {\n    ${form.sdk.join(',\n    ')},\n  }`);
  const call = `await client.${key}(${args.length ? `{\n  ${args.join(',\n  ')},\n}` : ''})`;

  return [
    { lang: 'Shell', label: 'curl', source: curl.join(' \\\n  ') },
    { lang: 'JavaScript', label: 'TypeScript SDK', source: `const res = ${call};` },
  ];
}

/**
 * An upload's parts (D56): curl's `-F` for each, a file part read from a file on disk, and the
 * SDK's body with the file as a `Blob` (`photo`, for example from `openAsBlob`).
 */
function multipartSample(operation: Schema): { curl: string[]; sdk: string[] } | undefined {
  const schema = operation.requestBody?.content?.['multipart/form-data']?.schema;
  if (!schema) return undefined;
  const example = (operation.requestBody.content['multipart/form-data'].example ?? {}) as Record<string, unknown>;
  const curl: string[] = [];
  const sdk: string[] = [];
  for (const [name, part] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    if (part.format === 'binary') {
      curl.push(`-F "${name}=@photo.jpg"`);
      sdk.push(`${name}: photo`);
    } else {
      curl.push(`-F "${name}=${String(example[name])}"`);
      sdk.push(`${name}: ${JSON.stringify(example[name])}`);
    }
  }
  return { curl, sdk };
}

/** A value as a TypeScript literal: JSON with unquoted keys where they are identifiers. */
function literal(value: unknown, indent: number): string {
  const pad = '  '.repeat(indent);
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    return `[\n${value.map((v) => `${pad}  ${literal(v, indent + 1)}`).join(',\n')},\n${pad}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (!entries.length) return '{}';
    const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));
    return `{\n${entries.map(([k, v]) => `${pad}  ${key(k)}: ${literal(v, indent + 1)}`).join(',\n')},\n${pad}}`;
  }
  return typeof value === 'string'
    ? `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
    : JSON.stringify(value);
}
