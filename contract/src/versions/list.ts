import { z } from 'zod';

/**
 * The dated versions of the API (D44), newest first. The first is the latest: what the
 * contract describes, what an app is pinned to when it registers, and what a request
 * without a version header and without a pin is served. Every older version is derived from
 * it by the version changes (./changes).
 */
export const API_VERSIONS = ['2027-01-15', '2026-12-01', '2025-01-01'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const LATEST_API_VERSION: ApiVersion = API_VERSIONS[0];

export const ZApiVersion = z
  .enum(API_VERSIONS)
  .describe('A dated API version; the version an app is pinned to serves its calls without an Api-Version header');

export function isApiVersion(value: unknown): value is ApiVersion {
  return typeof value === 'string' && (API_VERSIONS as readonly string[]).includes(value);
}

/** What a client sees of a version: whether it is deprecated, since when, and until when it is served. */
export interface VersionLifecycle {
  version: ApiVersion;
  deprecated: boolean;
  /** When its successor shipped (RFC 9745 `Deprecation`), for a deprecated version. */
  deprecatedAt: string | null;
  /** When it stops being served (RFC 8594 `Sunset`), at least 12 months after deprecation. */
  sunset: string | null;
}

/** D44: 2025-01-01 is deprecated from the day versions ship (2026-12-01) and sunsets a year later. */
export const VERSION_LIFECYCLE: Record<ApiVersion, VersionLifecycle> = {
  '2027-01-15': { version: '2027-01-15', deprecated: false, deprecatedAt: null, sunset: null },
  // D54: 2026-12-01 differs from its successor in one additive detail (two claim types), so it
  // stays supported without a sunset.
  '2026-12-01': { version: '2026-12-01', deprecated: false, deprecatedAt: null, sunset: null },
  '2025-01-01': {
    version: '2025-01-01',
    deprecated: true,
    deprecatedAt: '2026-12-01T00:00:00.000Z',
    sunset: '2027-12-01T00:00:00.000Z',
  },
};

/**
 * The response headers a deprecated version's answers carry: `Deprecation` (RFC 9745, an
 * `@`-prefixed Unix time), `Sunset` (RFC 8594, an HTTP date) and a `Link` to its changelog
 * entry with `rel="deprecation"`.
 */
export function deprecationHeaders(version: ApiVersion, publicBaseUrl: string): Record<string, string> {
  const life = VERSION_LIFECYCLE[version];
  if (!life.deprecated || !life.deprecatedAt || !life.sunset) return {};
  return {
    deprecation: `@${Date.parse(life.deprecatedAt) / 1000}`,
    sunset: new Date(life.sunset).toUTCString(),
    link: `<${publicBaseUrl.replace(/\/+$/, '')}/docs/versions#${version}>; rel="deprecation"`,
  };
}
