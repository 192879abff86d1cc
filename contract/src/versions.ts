import { z } from 'zod';

/**
 * The dated versions of the API (D44), newest first. The first is the latest: what the
 * contract describes, what an app is pinned to when it registers, and what a request
 * without a version header and without a pin is served.
 */
export const API_VERSIONS = ['2026-12-01', '2025-01-01'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const LATEST_API_VERSION: ApiVersion = API_VERSIONS[0];

export const ZApiVersion = z
  .enum(API_VERSIONS)
  .describe('A dated API version; the version an app is pinned to serves its calls without an Api-Version header');
