import { OAUTH_ERROR_CODES, STATUS_NAMES } from '@protection-service/contract';
import type { TError, TOauthErrorCode } from './generated/client';

/**
 * An RFC 6749 §5.2 error code, for example `invalid_grant`: {@link ProtectionAuthError.code}.
 *
 * @example
 * const dead = (code: OAuthErrorCode) => code === 'invalid_grant';
 */
export type OAuthErrorCode = TOauthErrorCode;

/**
 * The D2 failure body: `{statusCode, message, error}`, plus `issues` on validation failures
 * (400) and `error_description` on the OAuth endpoints (where `error` is an RFC 6749 code).
 *
 * @example
 * const body: ApiErrorBody = error.body;
 * for (const issue of body.issues ?? []) console.error(issue.path, issue.message);
 */
export type ApiErrorBody = TError & { error_description?: string };

/**
 * A failure answered by the service, or by something in front of it: thrown by {@link unwrap},
 * by calls answered with a status their route does not declare (a 500, a proxy's 502), and by
 * {@link paginate} for a failed page.
 *
 * @example
 * try {
 *   unwrap(await client.claims.get({ params: { claimId } }));
 * } catch (e) {
 *   if (e instanceof ProtectionApiError) console.error(e.status, e.body.message, e.requestId);
 *   else throw e;
 * }
 */
export class ProtectionApiError extends Error {
  override readonly name: string = 'ProtectionApiError';
  /** The HTTP status, for example 404. */
  readonly status: number;
  /** The D2 body. When the answer was not D2 JSON (a proxy page, say), one is made from the status. */
  readonly body: ApiErrorBody;
  /** The `x-request-id` of the answer: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  readonly headers: Headers;

  constructor(status: number, body: unknown, headers: Headers) {
    const errorBody = isErrorBody(body) ? body : fallbackBody(status, body);
    super(`${status} ${errorBody.error}: ${errorBody.message}`);
    this.status = status;
    this.body = errorBody;
    this.requestId = headers.get('x-request-id') ?? undefined;
    this.headers = headers;
  }
}

/**
 * The token endpoint refused a grant or the client (RFC 6749 §5.2): `code` says why. Thrown by
 * {@link exchangeCode} and by API calls whose token could not be obtained or refreshed. An
 * `invalid_grant` on a refresh means the refresh token is dead (revoked, reused or the app was
 * uninstalled): the merchant has to install the app again.
 *
 * @example
 * try {
 *   await client.orders.get({ params: { sourceOrderId } });
 * } catch (e) {
 *   if (e instanceof ProtectionAuthError && e.code === 'invalid_grant') await markUninstalled(storeId);
 *   else throw e;
 * }
 */
export class ProtectionAuthError extends ProtectionApiError {
  override readonly name: string = 'ProtectionAuthError';
  /** The RFC 6749 error code, for example `invalid_grant` or `invalid_client`. */
  readonly code: OAuthErrorCode;
  /** The server's `error_description`. */
  readonly description: string;

  constructor(status: number, body: ApiErrorBody & { error: OAuthErrorCode }, headers: Headers) {
    super(status, body, headers);
    this.code = body.error;
    this.description = body.error_description ?? body.message;
  }
}

/** An RFC 6749 error body (the token endpoint also answers a D2 429, which is not one). */
export function isOAuthErrorBody(body: unknown): body is ApiErrorBody & { error: OAuthErrorCode } {
  return isErrorBody(body) && (OAUTH_ERROR_CODES as readonly string[]).includes(body.error);
}

function isErrorBody(body: unknown): body is ApiErrorBody {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b.statusCode === 'number' && typeof b.message === 'string' && typeof b.error === 'string';
}

function fallbackBody(status: number, body: unknown): ApiErrorBody {
  const error = STATUS_NAMES[status as keyof typeof STATUS_NAMES] ?? 'Error';
  const message = typeof body === 'string' && body.trim() ? body.trim().slice(0, 500) : error;
  return { statusCode: status, message, error };
}

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206 | 207;

/**
 * The body type of the 2xx answers of a response union.
 *
 * @example
 * type Claim = SuccessBody<Awaited<ReturnType<typeof client.claims.get>>>; // TClaim
 */
export type SuccessBody<R> = R extends { status: SuccessStatus; body: infer B } ? B : never;

/**
 * The body of a 2xx answer; any other status (a declared 4xx, or a 304 on a conditional read)
 * throws a {@link ProtectionApiError}. `/v2` bodies keep their D1 `{ data }` envelope.
 *
 * @example
 * const quote = unwrap(await client.public.getInsurance({ query: { store_url: 'shop.example.com' } }));
 */
export function unwrap<R extends { status: number; body: unknown; headers: Headers }>(res: R): SuccessBody<R> {
  if (res.status >= 200 && res.status < 300) return res.body as SuccessBody<R>;
  throw new ProtectionApiError(res.status, res.body, res.headers);
}
