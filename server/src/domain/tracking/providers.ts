import { parseAftership, verifyAftership } from './providers/aftership';
import { parseJson } from './providers/common';
import { parseEasypost, verifyEasypost } from './providers/easypost';
import { parseShip24, verifyShip24 } from './providers/ship24';
import type { NormalisedPackage } from './vocabulary';

export { AFTERSHIP_SIGNATURE_HEADER, aftershipStatus } from './providers/aftership';
export { EASYPOST_SIGNATURE_HEADER, easypostStatus } from './providers/easypost';
export { ship24Status } from './providers/ship24';

/** D54: the carrier aggregators a store can register as a tracking source. */
export type TrackingProvider = 'aftership' | 'easypost' | 'ship24';
export const TRACKING_PROVIDERS: readonly TrackingProvider[] = ['aftership', 'easypost', 'ship24'];

type Headers = Record<string, string | string[] | undefined>;
export type ParsedInbound = { ok: true; packages: NormalisedPackage[] } | { ok: false; reason: string };

const PROVIDERS: Readonly<
  Record<
    TrackingProvider,
    { verify: (secret: string, rawBody: Buffer, headers: Headers) => boolean; parse: (body: unknown) => ParsedInbound }
  >
> = {
  aftership: { verify: verifyAftership, parse: parseAftership },
  easypost: { verify: verifyEasypost, parse: parseEasypost },
  ship24: { verify: verifyShip24, parse: parseShip24 },
};

/**
 * D54: whether a delivery comes from the source, checked over the bytes that arrived (a
 * re-serialised body would not verify: `136.0` becomes `136`) in constant time. A missing or
 * garbled header is false; it never throws.
 */
export function verifyInbound(provider: TrackingProvider, secret: string, rawBody: Buffer, headers: Headers): boolean {
  try {
    const entry = Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider] : undefined;
    return !!entry && Buffer.isBuffer(rawBody) && entry.verify(secret, rawBody, headers ?? {});
  } catch {
    return false;
  }
}

/**
 * D54: the packages of a verified delivery. Unknown codes are `unknown` with the raw code kept;
 * a body that is not JSON or not the provider's shape is refused (the route answers 400).
 */
export function parseInbound(provider: TrackingProvider, rawBody: Buffer): ParsedInbound {
  const entry = Object.hasOwn(PROVIDERS, provider) ? PROVIDERS[provider] : undefined;
  if (!entry) return { ok: false, reason: `unknown provider: ${String(provider)}` };
  const body = parseJson(rawBody);
  if (body === undefined) return { ok: false, reason: 'the body is not JSON' };
  return entry.parse(body);
}
