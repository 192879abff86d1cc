// The contract is bundled into the SDK: its router, schemas and types are part of the package.
export * from '@protection-service/contract';
export {
  type AuthorizationCodeOptions,
  type AuthProvider,
  authorizationCode,
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
  type Client,
  type ClientOptions,
  createClient,
  DEFAULT_TIMEOUT_MS,
  type Fetch,
  type FetchMiddleware,
  USER_AGENT,
} from './client';
export { type ApiErrorBody, ProtectionApiError, ProtectionAuthError, type SuccessBody, unwrap } from './errors';
export {
  DEFAULT_WEBHOOK_TOLERANCE_S,
  type VerifyWebhookOptions,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './webhooks';
