// The contract is bundled into the SDK: its router, schemas and types are part of the package.
export * from '@protection-service/contract';
export {
  type Client,
  type ClientOptions,
  createClient,
  DEFAULT_TIMEOUT_MS,
  type Fetch,
  type FetchMiddleware,
  USER_AGENT,
} from './client';
export { type ApiErrorBody, ProtectionApiError, type SuccessBody, unwrap } from './errors';
