import type { RequestHandler } from 'express';
import { compilePaths } from './unmatched';

export const PUBLIC_CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'etag, x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset',
} as const;

/**
 * The public reads are called from shoppers' browsers on any storefront origin: allow every
 * origin (no credentials are involved), the two cohort headers (D29) and conditional GETs.
 */
export function publicCors(paths: readonly string[]): RequestHandler {
  const patterns = compilePaths(paths.map((path) => ({ method: 'GET', path })));
  return (req, res, next) => {
    if (!patterns.some((p) => p.regex.test(req.path))) return next();
    for (const [name, value] of Object.entries(PUBLIC_CORS_HEADERS)) res.setHeader(name, value);
    if (req.method === 'OPTIONS') {
      res.setHeader('access-control-allow-methods', 'GET, HEAD, OPTIONS');
      res.setHeader(
        'access-control-allow-headers',
        'x-svc-partner-app-id, x-svc-partner-variant, if-none-match, x-request-id',
      );
      res.setHeader('access-control-max-age', '600');
    }
    next();
  };
}
