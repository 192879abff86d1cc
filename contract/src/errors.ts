import { z } from 'zod';

/** HTTP status names used in the D2 `error` field. */
export const STATUS_NAMES = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
} as const;
export type ErrorStatus = keyof typeof STATUS_NAMES;

export const ZIssue = z
  .object({
    path: z.string().describe('Where the problem is, for example `body.lineItems.0.price`'),
    message: z.string(),
  })
  .strict();

/** D2: every failure. Validation failures (400) add `issues`. */
export const ZError = z
  .object({
    statusCode: z.number().int(),
    message: z.string(),
    error: z.string().describe('The HTTP status name, for example `Not Found`'),
    issues: z.array(ZIssue).optional(),
  })
  .strict()
  .describe('Error (D2)');
export type TError = z.infer<typeof ZError>;

/** RFC 6749 §5.2 error codes used by the token and revoke endpoints (D2). */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

export const ZOAuthError = z
  .object({
    statusCode: z.number().int(),
    message: z.string(),
    error: z.union([z.enum(OAUTH_ERROR_CODES), z.literal('Too Many Requests')]),
    error_description: z.string(),
    issues: z.array(ZIssue).optional(),
  })
  .strict()
  .describe('OAuth error (RFC 6749 §5.2, D2)');
export type TOAuthError = z.infer<typeof ZOAuthError>;

/** The D2 error responses for a set of statuses, to spread into a route's `responses`. */
export function errors<const S extends ErrorStatus>(...statuses: S[]): Record<S, typeof ZError> {
  return Object.fromEntries(statuses.map((s) => [s, ZError])) as Record<S, typeof ZError>;
}

/** The failures every route of an auth kind can answer. */
export const publicErrors = errors(400, 404, 429);
export const tokenErrors = errors(400, 401, 403, 404, 429);
export const dashboardErrors = errors(400, 401, 403, 404, 429);
/** A provider's delivery (D54): its signature is its only credential. */
export const providerErrors = errors(400, 401, 429);
export const oauthErrors = { 400: ZOAuthError, 401: ZOAuthError, 429: ZOAuthError } as const;
