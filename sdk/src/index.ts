// The public surface: the client, its generated route types (plain interfaces, see
// scripts/sdk-types.ts), authentication, retries and errors. The contract's zod schemas are
// bundled into the runtime but kept out of the declarations.
export {
  type AuthorizationCodeOptions,
  type AuthorizeRequest,
  type AuthorizeUrlOptions,
  authorizationCode,
  authorizeUrl,
  type ClientCredentialsOptions,
  type ClientSecret,
  clientCredentials,
  createPkcePair,
  EXPIRY_SKEW_MS,
  type ExchangeCodeOptions,
  exchangeCode,
  type PkcePair,
  type StoredTokens,
  type Tokens,
} from './auth';
export {
  type AuthProvider,
  type ClientOptions,
  createClient,
  DEFAULT_TIMEOUT_MS,
  type Fetch,
  type FetchMiddleware,
  type ModeClient,
  SDK_API_VERSION,
  tokenLivemode,
  USER_AGENT,
} from './client';
export {
  type ApiErrorBody,
  type OAuthErrorCode,
  ProtectionApiError,
  ProtectionAuthError,
  type SuccessBody,
  unwrap,
} from './errors';
export { FILE_MAX_BYTES, type FileInput, uploadFile } from './files';
export type * from './generated/client';
export { type ListItem, type ListOperation, paginate } from './paginate';
export { DEFAULT_RETRY, RETRY_STATUSES, type RetryOptions } from './retry';
export {
  DEFAULT_WEBHOOK_TOLERANCE_S,
  type VerifyWebhookOptions,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './webhooks';
