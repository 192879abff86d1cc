/**
 * What a partner still on API version 2025-01-01 watches for: the service marks every answer of
 * a deprecated version with `Deprecation`, `Sunset` and a `Link` to how to upgrade
 * (`/docs/versions`). This client middleware logs that once per run.
 */
import type { FetchMiddleware } from '../../src/index';

let logged = false;

export const logDeprecation: FetchMiddleware = (next) => async (url, init) => {
  const res = await next(url, init);
  if (!logged && res.headers.has('deprecation')) {
    logged = true;
    console.log(
      `api version ${res.headers.get('api-version')} is deprecated, sunset ${res.headers.get('sunset')}; ` +
        `upgrade: ${res.headers.get('link')}`,
    );
  }
  return res;
};
