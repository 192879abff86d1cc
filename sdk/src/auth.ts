import type { AuthProvider, ClientOptions, FetchMiddleware } from './client';
import { createClient } from './client';
import { isOAuthErrorBody, ProtectionApiError, ProtectionAuthError } from './errors';
import type { Client, TTokenRequest, TTokenResponse } from './generated/client';

/**
 * OAuth for the client: it obtains access tokens from `POST /v1/oauth/token`, caches them,
 * renews them before they expire and once after a 401. The client authenticates to the
 * token endpoint with HTTP Basic (RFC 6749 §2.3.1), so its secret never travels in a body.
 */

/**
 * A token is renewed this long (60 s) before it expires, so that none expires on the way.
 *
 * @example
 * const stillGood = tokens.expiresAt - Date.now() > EXPIRY_SKEW_MS;
 */
export const EXPIRY_SKEW_MS = 60_000;

/**
 * An app's credentials (`svc_app_…`, `svc_secret_…`), as app registration showed them once.
 *
 * @example
 * const secret: ClientSecret = { clientId: process.env.SVC_CLIENT_ID!, clientSecret: process.env.SVC_CLIENT_SECRET! };
 */
export interface ClientSecret {
  clientId: string;
  clientSecret: string;
}

/**
 * The tokens of an authorization-code grant, as {@link exchangeCode} and `onTokens` give them.
 * Store them per store; they are secrets.
 *
 * @example
 * const tokens: Tokens = await exchangeCode({ baseUrl, clientId, clientSecret, code, redirectUri, codeVerifier });
 * await db.saveTokens(storeId, tokens);
 */
export interface Tokens {
  accessToken: string;
  /** The latest refresh token (`svc_rt_…`). Each refresh retires the one before (D12). */
  refreshToken: string;
  /** When `accessToken` expires, in milliseconds since the epoch (as `Date.now()`). */
  expiresAt: number;
  /** The granted scopes, later style (`order:read`). */
  scopes: string[];
}

/**
 * What {@link authorizationCode} starts from: a refresh token at least, as stored by the caller.
 *
 * @example
 * const stored: StoredTokens = { refreshToken: row.refresh_token }; // the access token is fetched on first use
 */
export type StoredTokens = Pick<Tokens, 'refreshToken'> & Partial<Omit<Tokens, 'refreshToken'>>;

/**
 * Options of {@link clientCredentials}.
 *
 * @example
 * const options: ClientCredentialsOptions = { clientId, clientSecret, storeId: 'st_…', scopes: ['claim:read'] };
 */
export interface ClientCredentialsOptions extends ClientSecret {
  /** The store the app is installed on; the installation decides the scopes. */
  storeId: string;
  /** Ask for fewer scopes than the installation grants (a subset, else `invalid_scope`). */
  scopes?: readonly string[];
}

/**
 * Tokens for an app acting on one store it is installed on (client credentials grant). They
 * carry no refresh token (RFC 6749 §4.4.3): a new token is simply requested.
 *
 * @example
 * const client = createClient({
 *   baseUrl: 'https://api.example.com',
 *   auth: clientCredentials({ clientId, clientSecret, storeId: 'st_…' }),
 * });
 */
export function clientCredentials(options: ClientCredentialsOptions): AuthProvider {
  const { storeId, scopes } = options;
  const source = new TokenSource({}, async (client) => {
    const body: TTokenRequest = { grant_type: 'client_credentials', store_id: storeId };
    if (scopes) body.scopes = [...scopes];
    const res = await requestToken(client, options, body);
    return { accessToken: res.access_token, expiresAt: expiresAt(res) };
  });
  // D45: the test client secret works on test stores only, so its tokens are test tokens.
  return {
    livemode: !options.clientSecret.startsWith('svc_test_secret_'),
    attach: (tokenClient) => bearer(source, tokenClient),
  };
}

/**
 * Options of {@link authorizationCode}.
 *
 * @example
 * const options: AuthorizationCodeOptions = {
 *   clientId, clientSecret,
 *   tokens: await db.loadTokens(storeId),
 *   onTokens: (tokens) => db.saveTokens(storeId, tokens),
 * };
 */
export interface AuthorizationCodeOptions extends ClientSecret {
  /** The tokens from {@link exchangeCode}, or as last given to `onTokens`. */
  tokens: StoredTokens;
  /**
   * Called with the new tokens after every refresh, before they are used. Persist them: the
   * refresh token given before no longer works, and presenting it again revokes the whole
   * grant (D12). If it throws, the call that caused the refresh rejects with that error;
   * the new tokens are still used from then on.
   */
  onTokens: (tokens: Tokens) => void | Promise<void>;
}

/**
 * Tokens of a merchant's install (authorization code grant), refreshed with the refresh token,
 * always the latest one. When a refresh answers `invalid_grant` the grant is over (revoked,
 * or the app uninstalled): that {@link ProtectionAuthError} is thrown, and thrown again by
 * every later call without asking the server.
 *
 * @example
 * const client = createClient({
 *   baseUrl: 'https://api.example.com',
 *   auth: authorizationCode({ clientId, clientSecret, tokens: await db.loadTokens(storeId),
 *     onTokens: (tokens) => db.saveTokens(storeId, tokens) }),
 * });
 */
export function authorizationCode(options: AuthorizationCodeOptions): AuthProvider {
  let dead: ProtectionAuthError | undefined;
  const refresh = async (client: Client, held: Held): Promise<Tokens> => {
    if (dead) throw dead;
    // Always set: the provider starts from a refresh token, and every refresh keeps one.
    const refreshToken = held.refreshToken!;
    let res: TTokenResponse;
    try {
      res = await requestToken(client, options, { grant_type: 'refresh_token', refresh_token: refreshToken });
    } catch (e) {
      if (e instanceof ProtectionAuthError && e.code === 'invalid_grant') dead = e;
      throw e;
    }
    // The server rotates (D12); should one not, the old refresh token stays valid.
    return toTokens(res, res.refresh_token ?? refreshToken);
  };
  const source = new TokenSource(options.tokens, refresh, options.onTokens);
  return {
    livemode: !options.clientSecret.startsWith('svc_test_secret_'),
    attach: (tokenClient) => bearer(source, tokenClient),
  };
}

/**
 * Options of {@link exchangeCode}: the app's credentials, the redirect's `code`, and the
 * client options (`baseUrl`, `fetch`, …) to reach the token endpoint with.
 *
 * @example
 * const options: ExchangeCodeOptions = { baseUrl, clientId, clientSecret, code, redirectUri, codeVerifier: pkce.verifier };
 */
export interface ExchangeCodeOptions extends ClientSecret, Omit<ClientOptions, 'accessToken' | 'auth'> {
  /** The `code` query parameter of the redirect after the merchant approved the install. */
  code: string;
  /** The redirect URI the install used, exactly. */
  redirectUri: string;
  /** The PKCE verifier, when the install sent a code challenge ({@link createPkcePair}). */
  codeVerifier?: string;
}

/**
 * Exchanges an authorization code for tokens. Store them and start {@link authorizationCode}
 * from them. A code works once.
 *
 * @example
 * const tokens = await exchangeCode({ baseUrl, clientId, clientSecret, code, redirectUri, codeVerifier });
 */
export async function exchangeCode(options: ExchangeCodeOptions): Promise<Tokens> {
  const { clientId, clientSecret, code, redirectUri, codeVerifier, ...clientOptions } = options;
  const body: TTokenRequest = { grant_type: 'authorization_code', code, redirect_uri: redirectUri };
  if (codeVerifier !== undefined) body.code_verifier = codeVerifier;
  const res = await requestToken(createClient(clientOptions), { clientId, clientSecret }, body);
  if (res.refresh_token === undefined) throw new Error('the token endpoint answered no refresh token');
  return toTokens(res, res.refresh_token);
}

/**
 * A PKCE verifier and its challenge, from {@link createPkcePair}.
 *
 * @example
 * const { verifier, challenge, method } = await createPkcePair();
 */
export interface PkcePair {
  /** Keep it for {@link exchangeCode}. */
  verifier: string;
  /** Send it at authorization as `codeChallenge`, with `codeChallengeMethod: 'S256'`. */
  challenge: string;
  method: 'S256';
}

/**
 * A PKCE verifier and its S256 challenge (RFC 7636), with WebCrypto, so in browsers too. The
 * verifier is 32 random bytes in base64url: 43 characters, all of them unreserved.
 *
 * @example
 * const pkce = await createPkcePair();
 * // at install: send pkce.challenge as codeChallenge, with codeChallengeMethod 'S256'; keep pkce.verifier
 * const tokens = await exchangeCode({ baseUrl, clientId, clientSecret, code, redirectUri, codeVerifier: pkce.verifier });
 */
export async function createPkcePair(): Promise<PkcePair> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)), method: 'S256' };
}

/**
 * Where to send the merchant's browser to install your app, from {@link authorizeUrl}, and
 * what to keep until the redirect comes back.
 *
 * @example
 * const { url, state, codeVerifier } = await authorizeUrl({ baseUrl, clientId, redirectUri });
 */
export interface AuthorizeRequest {
  /** `GET <baseUrl>/v1/oauth/authorize?…`: redirect the merchant's browser there. */
  url: string;
  /** Compare it with the redirect's `state` before anything else. */
  state: string;
  /** Pass it to {@link exchangeCode} as `codeVerifier`. */
  codeVerifier: string;
}

/**
 * What {@link authorizeUrl} builds a request from.
 *
 * @example
 * const options: AuthorizeUrlOptions = { baseUrl, clientId, redirectUri, scopes: ['order:read'] };
 */
export interface AuthorizeUrlOptions {
  baseUrl: string;
  clientId: string;
  /** One of the app's registered redirect URIs, exactly. */
  redirectUri: string;
  /** Fewer scopes than the app registered; all of them when left out. */
  scopes?: readonly string[];
  /** A store id, when you know which store installs; the merchant chooses otherwise. */
  store?: string;
  /** Your own state; 32 random bytes when left out. */
  state?: string;
}

/**
 * The authorization URL of an install (RFC 6749 §4.1.1, D40): the service's page where the
 * merchant signs in and consents, with a fresh PKCE pair (S256) and a state. Redirect the
 * merchant's browser to `url`; keep `state` and `codeVerifier` (in the session, say) until the
 * redirect comes back with `code` and `state`, or with `error=access_denied` when the merchant
 * cancelled.
 *
 * @example
 * const install = await authorizeUrl({ baseUrl, clientId, redirectUri: 'https://app.example.com/callback' });
 * session.install = { state: install.state, codeVerifier: install.codeVerifier };
 * res.redirect(install.url);
 * // on the redirect, once `state` matches:
 * const tokens = await exchangeCode({ baseUrl, clientId, clientSecret, code, redirectUri, codeVerifier });
 */
export async function authorizeUrl(options: AuthorizeUrlOptions): Promise<AuthorizeRequest> {
  const pkce = await createPkcePair();
  const state = options.state ?? base64url(crypto.getRandomValues(new Uint8Array(32)));
  const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/v1/oauth/authorize`);
  const query: [string, string | undefined][] = [
    ['response_type', 'code'],
    ['client_id', options.clientId],
    ['redirect_uri', options.redirectUri],
    ['scope', options.scopes?.join(' ')],
    ['state', state],
    ['code_challenge', pkce.challenge],
    ['code_challenge_method', pkce.method],
    ['store', options.store],
  ];
  for (const [name, value] of query) if (value !== undefined) url.searchParams.set(name, value);
  return { url: url.toString(), state, codeVerifier: pkce.verifier };
}

// ---------------------------------------------------------------------------------------------

/** What a provider knows; any part may be missing until the first token arrives. */
interface Held {
  accessToken?: string;
  /** Unknown for a stored access token without an expiry: it is used until a 401. */
  expiresAt?: number;
  refreshToken?: string;
}

/** What a token request gives: an access token at least. */
type Issued = Held & { accessToken: string };

/**
 * One access token at a time: cached until shortly before it expires, fetched lazily, and
 * fetched once for all the calls that need one at the same moment.
 */
class TokenSource<T extends Issued> {
  #held: Held;
  #pending: Promise<string> | undefined;
  readonly #issue: (client: Client, held: Held) => Promise<T>;
  readonly #onIssued: ((issued: T) => void | Promise<void>) | undefined;

  constructor(
    held: Held,
    issue: (client: Client, held: Held) => Promise<T>,
    onIssued?: (issued: T) => void | Promise<void>,
  ) {
    this.#held = { ...held };
    this.#issue = issue;
    this.#onIssued = onIssued;
  }

  async get(client: Client): Promise<string> {
    const { accessToken, expiresAt } = this.#held;
    if (accessToken !== undefined && (expiresAt === undefined || Date.now() < expiresAt - EXPIRY_SKEW_MS)) {
      return accessToken;
    }
    this.#pending ??= this.#renew(client).finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** After a 401 for `refused`: a new token, unless a concurrent call has already replaced it. */
  replace(client: Client, refused: string): Promise<string> {
    if (this.#held.accessToken === refused) this.#held = { ...this.#held, accessToken: undefined };
    return this.get(client);
  }

  async #renew(client: Client): Promise<string> {
    const issued = await this.#issue(client, this.#held);
    // Kept before anything else runs: the next refresh must present this refresh token (D12).
    this.#held = issued;
    await this.#onIssued?.(issued);
    return issued.accessToken;
  }
}

/**
 * Sends `Authorization: Bearer`; after a 401 gets a new token and sends the request once
 * more. A second 401 is the answer: the caller sees it, and nothing loops.
 */
function bearer<T extends Issued>(source: TokenSource<T>, client: Client): FetchMiddleware {
  return (next) => async (url, init) => {
    const token = await source.get(client);
    const res = await next(url, withBearer(init, token));
    if (res.status !== 401 || !canResend(init.body)) return res;
    // Free the connection: this answer is replaced by the retry's.
    await res.body?.cancel().catch(() => {});
    return next(url, withBearer(init, await source.replace(client, token)));
  };
}

function withBearer(init: RequestInit, token: string): RequestInit {
  // A plain object, as the client passes headers to the middleware below.
  const headers = Object.fromEntries(new Headers(init.headers));
  return { ...init, headers: { ...headers, authorization: `Bearer ${token}` } };
}

/**
 * The client sends JSON bodies as strings, which can be sent again; a stream is consumed by
 * the first attempt, so a request with one is not retried.
 */
function canResend(body: RequestInit['body']): boolean {
  return !(typeof ReadableStream !== 'undefined' && body instanceof ReadableStream);
}

/** `POST /v1/oauth/token` through the typed client; a refusal throws ProtectionAuthError. */
async function requestToken(client: Client, secret: ClientSecret, body: TTokenRequest): Promise<TTokenResponse> {
  const res = await client.oauth.token({ body, headers: { authorization: basicAuth(secret) } });
  if (res.status === 200) return res.body;
  if (isOAuthErrorBody(res.body)) throw new ProtectionAuthError(res.status, res.body, res.headers);
  throw new ProtectionApiError(res.status, res.body, res.headers); // 429: retry later
}

/** RFC 6749 §2.3.1: id and secret are form-urlencoded, then joined and base64-encoded. */
function basicAuth({ clientId, clientSecret }: ClientSecret): string {
  const form = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${btoa(`${form(clientId)}:${form(clientSecret)}`)}`;
}

function expiresAt(res: TTokenResponse): number {
  return Date.now() + res.expires_in * 1000;
}

function toTokens(res: TTokenResponse, refreshToken: string): Tokens {
  return {
    accessToken: res.access_token,
    refreshToken,
    expiresAt: expiresAt(res),
    scopes: res.scope ? res.scope.split(' ') : [],
  };
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
