import { type ApiVersion, contractFor, isRouteMeta, LATEST_API_VERSION } from '@protection-service/contract';
import { type ApiFetcher, type AppRoute, initClient } from '@ts-rest/core';
import { version } from '../package.json';
import { ProtectionApiError } from './errors';
import type { Client } from './generated/client';
import { type RetryOptions, withRetries } from './retry';

/**
 * Sent as `user-agent` outside browsers: `protection-service-sdk/<version>`.
 *
 * @example
 * const client = createClient({ baseUrl, headers: { 'user-agent': `my-app/1.0 ${USER_AGENT}` } });
 */
export const USER_AGENT = `protection-service-sdk/${version}`;
/**
 * Each attempt of a call is aborted after this long (30 s) unless `timeoutMs` says otherwise.
 *
 * @example
 * const patient = createClient({ baseUrl, timeoutMs: 2 * DEFAULT_TIMEOUT_MS });
 */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The dated API version this SDK was built against (D44): what `createClient` asks for unless
 * told otherwise, so that upgrading the service never changes what an installed SDK reads.
 *
 * @example
 * const client = createClient({ baseUrl, apiVersion: SDK_API_VERSION });
 */
export const SDK_API_VERSION: ApiVersion = LATEST_API_VERSION;

/**
 * The one request shape the client sends: an absolute URL and a `RequestInit`. Pass your own
 * as `createClient({ fetch })` (a proxy agent, a test double).
 *
 * @example
 * const fetch: Fetch = (url, init) => globalThis.fetch(url, { ...init, keepalive: true });
 * const client = createClient({ baseUrl, fetch });
 */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Wraps the fetch below it: change the request, look at the response, retry. The seam for
 * authentication layers, logging and tests.
 *
 * @example
 * const logging: FetchMiddleware = (next) => async (url, init) => {
 *   const res = await next(url, init);
 *   console.log(init.method, url, res.status);
 *   return res;
 * };
 */
export type FetchMiddleware = (next: Fetch) => Fetch;

/**
 * Supplies access tokens to a client: `createClient({ baseUrl, auth })`. Made by
 * {@link clientCredentials} and {@link authorizationCode}.
 *
 * @example
 * const auth: AuthProvider = clientCredentials({ clientId, clientSecret, storeId });
 * const client = createClient({ baseUrl: 'https://api.example.com', auth });
 */
export interface AuthProvider {
  /**
   * Whether its tokens are live (true) or a test store's (false, from a `svc_test_secret_…`
   * or a `svc_rt_test_…` refresh token); undefined when it cannot tell.
   */
  readonly livemode?: boolean;
  /**
   * createClient calls this with a client for the token endpoint (same base URL, fetch and
   * middleware) and wraps the calls of routes that take an access token in the answer.
   */
  attach(tokenClient: Client): FetchMiddleware;
}

/**
 * Options of {@link createClient}.
 *
 * @example
 * const options: ClientOptions = {
 *   baseUrl: 'https://api.example.com',
 *   auth: clientCredentials({ clientId, clientSecret, storeId }),
 *   retry: { maxRetries: 3 },
 *   timeoutMs: 10_000,
 * };
 */
export interface ClientOptions {
  /** Where the service runs, for example `https://api.example.com`. */
  baseUrl: string;
  /** An access token (`svc_at_…`) sent as `Authorization: Bearer`. */
  accessToken?: string;
  /**
   * Obtains and refreshes access tokens itself: {@link clientCredentials} or
   * {@link authorizationCode}. Used for the routes that take an app access token; instead of
   * `accessToken`, not with it.
   */
  auth?: AuthProvider;
  /**
   * The dated API version to call in (D44), sent as `Api-Version` on every route that takes an
   * app access token: {@link SDK_API_VERSION} (the latest when this SDK was built) by default;
   * `null` sends none, so the app's pinned version answers. For the types of an older version,
   * use the `createClient` of `@protection-service/sdk/versions/<version>`.
   */
  apiVersion?: ApiVersion | null;
  /** Headers sent with every request; they override the SDK's own (`user-agent`, `authorization`). */
  headers?: Record<string, string>;
  /** A fetch implementation; the global one by default. */
  fetch?: Fetch;
  /** Applied in order around `fetch`: the first one sees each request first. */
  middleware?: readonly FetchMiddleware[];
  /**
   * Abort an attempt (request and body) after this many milliseconds with a `TimeoutError`
   * DOMException, which is retried like a network failure; 30 s by default, `0` (or
   * `Infinity`) for none. A per-call `fetchOptions.signal` also applies, to every attempt.
   */
  timeoutMs?: number;
  /**
   * Retries of 429, 502, 503, 504 and network failures: `{ maxRetries: 2 }` by default, `false`
   * for none. Only calls that are safe to repeat are retried: GET, PUT, DELETE, and POSTs that
   * carry an `Idempotency-Key` (which the SDK adds to every POST that accepts one, D33).
   */
  retry?: RetryOptions | false;
}

/**
 * Whether an access token is live (`svc_at_…`) or a test store's (`svc_at_test_…`).
 *
 * @example
 * if (!tokenLivemode(token)) console.log('test mode: nothing here touches a live store');
 */
export function tokenLivemode(token: string): boolean {
  return !token.startsWith('svc_at_test_');
}

/**
 * A client typed by the contract, and the mode of its credentials: `livemode` is false for a
 * test store's token (`svc_at_test_…`), true for a live one, undefined without a token.
 *
 * @example
 * const client: ModeClient = createClient({ baseUrl, accessToken });
 * if (client.livemode === false) console.log('talking to a test store');
 */
export type ModeClient = Client & { readonly livemode: boolean | undefined };

/**
 * A client typed by the contract. Each call answers `{ status, body, headers }` for the
 * statuses its route declares, with `body` typed per status; a failure the route does not
 * declare (a 500 or 502, say) throws {@link ProtectionApiError}. Network failures and
 * timeouts reject with the error fetch gives, once the retries (`retry`) are spent.
 *
 * @example
 * const client = createClient({ baseUrl: 'https://api.example.com' });
 * const res = await client.public.getInsurance({ query: { store_url: 'shop.example.com' } });
 * if (res.status === 200) console.log(res.body.rules);
 */
export function createClient(options: ClientOptions): ModeClient {
  if (options.auth && options.accessToken) throw new TypeError('createClient: pass accessToken or auth, not both');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeout = Number.isFinite(timeoutMs) && timeoutMs > 0;
  const base: Fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const send = (options.middleware ?? []).reduceRight<Fetch>((next, middleware) => middleware(next), base);
  // The auth layer sits outside the caller's middleware, so that sees every attempt with its
  // token. Its token requests go through a client like this one, without the auth layer.
  const sendWithToken = options.auth ? options.auth.attach(createClient({ ...options, auth: undefined }))(send) : send;

  const retried = withRetries(options.retry);
  const apiVersion = options.apiVersion === undefined ? SDK_API_VERSION : options.apiVersion;

  const api: ApiFetcher = async ({ route, path, method, headers, body, fetchOptions }) => {
    const fetcher = takesAccessToken(route) ? sendWithToken : send;
    // D44: the version is asked for on the versioned routes only (those of an access token).
    if (apiVersion !== null && takesAccessToken(route) && headers['api-version'] === undefined) {
      headers = { ...headers, 'api-version': apiVersion };
    }
    // D33: a POST that accepts an Idempotency-Key gets one, the same for all its attempts, so
    // that a retry after a lost answer replays the first answer instead of acting twice.
    if (method === 'POST' && takesIdempotencyKey(route) && headers['idempotency-key'] === undefined) {
      headers = { ...headers, 'idempotency-key': crypto.randomUUID() };
    }
    const repeatable = method !== 'POST' && method !== 'PATCH' ? true : headers['idempotency-key'] !== undefined;
    const caller = fetchOptions?.signal ?? undefined;
    const { response, body: parsed } = await retried(repeatable, caller, async () => {
      const signals = [caller, timeout ? AbortSignal.timeout(timeoutMs) : undefined].filter(
        (s): s is AbortSignal => s != null,
      );
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      const response = await fetcher(repeatedQuery(path), { ...fetchOptions, method, headers, body, signal });
      return { response, body: await readBody(response, route) };
    });
    if (response.status >= 400 && !(response.status in route.responses)) {
      throw new ProtectionApiError(response.status, parsed, response.headers);
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };

  const args = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    baseHeaders: {
      // Browsers would need a CORS preflight for it, which the public reads do not allow.
      ...(isBrowser() ? {} : { 'user-agent': USER_AGENT }),
      ...(options.accessToken ? { authorization: `Bearer ${options.accessToken}` } : {}),
      ...options.headers,
    },
    api,
    throwOnUnknownStatus: true,
    // Bodies are typed, not parsed: a newer server may add fields the strict schemas reject.
    validateResponse: false,
  } as const;
  // The generated `Client` interface describes exactly what ts-rest builds from the contract
  // (sdk/test/generated.test.ts keeps the two in step), in types a consumer checks cheaply.
  // An older version's routes (its statuses, its own routes) are its contract's (contractFor).
  const router = contractFor(apiVersion ?? LATEST_API_VERSION).router;
  const client = withMultipartBodies(router, initClient(router as never, args)) as unknown as Client;
  const livemode = options.accessToken !== undefined ? tokenLivemode(options.accessToken) : options.auth?.livemode;
  return Object.defineProperty(client, 'livemode', { value: livemode }) as ModeClient;
}

/**
 * An array in the query is the parameter repeated (`claimState=NEW&claimState=OPEN`), as the
 * API reads it (D51), not the `claimState[0]=…` of the request builder.
 */
function repeatedQuery(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? url : url.slice(0, at) + url.slice(at).replace(/%5B\d+%5D=/g, '=');
}

/** JSON when the answer says so, `undefined` when empty (204, 304), text otherwise. */
async function readBody(response: Response, route: AppRoute): Promise<unknown> {
  // D56: a stored file's bytes come back as they are, a Blob of the file's type.
  if (response.ok && isRouteMeta(route.metadata) && route.metadata.body === 'bytes') return response.blob();
  const text = await response.text();
  if (!text) return undefined;
  if (!(response.headers.get('content-type') ?? '').includes('json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * D56: an upload's body as multipart parts: a `Blob` as a file part (named by its own name
 * when it is a `File`), any other value as its text. ts-rest's own conversion would send a
 * `Blob` as `{}` and quote strings, so each multipart route of the router gets its body made
 * into `FormData` here before ts-rest sees it.
 */
function withMultipartBodies(router: Record<string, unknown>, client: Record<string, unknown>): unknown {
  for (const [group, routes] of Object.entries(router)) {
    for (const [name, route] of Object.entries(routes as Record<string, AppRoute>)) {
      if (!('contentType' in route) || route.contentType !== 'multipart/form-data') continue;
      const calls = client[group] as Record<string, (args: { body?: unknown }) => unknown>;
      const call = calls[name]!;
      calls[name] = (args) => call({ ...args, body: formDataOf(args.body) });
    }
  }
  return client;
}

function formDataOf(body: unknown): unknown {
  if (body instanceof FormData || typeof body !== 'object' || body === null) return body;
  const form = new FormData();
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (value instanceof Blob) form.append(key, value, value instanceof File ? value.name : key);
    else form.append(key, String(value));
  }
  return form;
}

/**
 * Only routes that take an app access token get one from `auth`: public reads stay anonymous,
 * dashboard routes take a dashboard JWT and the token endpoint authenticates the client.
 */
function takesAccessToken(route: AppRoute): boolean {
  return isRouteMeta(route.metadata) && route.metadata.auth === 'token';
}

/** D33: every token-authenticated POST accepts an `Idempotency-Key`. */
function takesIdempotencyKey(route: AppRoute): boolean {
  return route.method === 'POST' && takesAccessToken(route);
}

function isBrowser(): boolean {
  return 'window' in globalThis && 'document' in globalThis;
}
