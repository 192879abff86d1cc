/**
 * The one way domain code refuses a request: a kind (what went wrong, in terms of the request)
 * and a message for the caller, with validation issues, an RFC 6749 code or a challenge where
 * they apply. `http/errors.ts` turns it into the D2 answer (its status among them), in one place.
 *
 * Thrown, not returned: a refusal ends the transaction it happens in, and a transaction that
 * throws is rolled back, so nothing a refused request began is written.
 */
export type RefusalKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'missing'
  | 'conflict'
  | 'too_large'
  | 'payload_too_large'
  | 'unsupported_type'
  | 'unprocessable'
  | 'unavailable'
  | 'not_implemented';

export interface RefusalIssue {
  path: string;
  message: string;
}

interface RefusalDetail {
  /** Where the request is wrong (400, D2 `issues`). */
  issues?: RefusalIssue[];
  /** The RFC 6749 §5.2 code on the OAuth endpoints (D2). */
  oauthCode?: string;
  /** Headers the answer carries, such as the challenge of a refused authentication (RFC 6749 §5.2). */
  headers?: Record<string, string>;
}

export class Refusal extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
    readonly detail: RefusalDetail = {},
  ) {
    super(message);
    this.name = 'Refusal';
  }
}

/** Refusals by kind: `throw refuse.missing('claim not found')`. */
export const refuse = {
  invalid: (message: string, issues?: RefusalIssue[]) => new Refusal('invalid', message, issues ? { issues } : {}),
  /** An invalid value at one place of the body: the issue repeats the message. */
  invalidAt: (path: string, message: string) => new Refusal('invalid', message, { issues: [{ path, message }] }),
  /** Validation problems the domain found (D2: 400, the first one in the message). */
  issues: (issues: RefusalIssue[]) =>
    new Refusal('invalid', `invalid request: ${issues[0]!.path}: ${issues[0]!.message}`, { issues }),
  /** Credentials that prove no one (401), one answer for every way they fail. */
  unauthorized: (message: string) => new Refusal('unauthorized', message),
  /** A caller known to the store whose role does not allow this (403, D49). */
  forbidden: (message: string) => new Refusal('forbidden', message),
  missing: (message: string) => new Refusal('missing', message),
  conflict: (message: string) => new Refusal('conflict', message),
  /** A well-formed request for more than the service answers at once (422, D52's export). */
  tooLarge: (message: string) => new Refusal('too_large', message),
  /** A body over a route's own size limit (413, D56's uploads). */
  payloadTooLarge: (message: string) => new Refusal('payload_too_large', message),
  /** A body of a kind the route does not take (415, D56's file types). */
  unsupportedType: (message: string) => new Refusal('unsupported_type', message),
  /** A well-formed request whose content cannot be used (422: a file that does not decode, D56). */
  unprocessable: (message: string) => new Refusal('unprocessable', message),
  /** A store the service depends on cannot be reached (503 with Retry-After, D46, D56). */
  unavailable: (message: string) => new Refusal('unavailable', message, { headers: { 'retry-after': '2' } }),
  /** A route the contract names whose work the service does not do yet (501, D54's evaluation). */
  notImplemented: (message: string) => new Refusal('not_implemented', message),
  /**
   * An OAuth failure with its RFC 6749 code: `invalid_client` is a 401, the others 400. The
   * validation issues of a malformed request, or the challenge of a client told to use HTTP
   * Basic, go with it.
   */
  oauth: (code: string, message: string, detail: Pick<RefusalDetail, 'issues' | 'headers'> = {}) =>
    new Refusal(code === 'invalid_client' ? 'unauthorized' : 'invalid', message, { ...detail, oauthCode: code }),
};
