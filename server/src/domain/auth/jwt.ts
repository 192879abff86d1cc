import { createJWTSignatureMessage, encodeJWT, parseJWT } from '@oslojs/jwt';
import { equalBytes, hmacSha256 } from './crypto';

const HEADER = JSON.stringify({ alg: 'HS256', typ: 'JWT' });

/** Signs claims as an HS256 JWT. */
export function signJwt(key: Buffer, claims: Record<string, unknown>): string {
  const payload = JSON.stringify(claims);
  return encodeJWT(HEADER, payload, hmacSha256(key, createJWTSignatureMessage(HEADER, payload)));
}

/**
 * The claims of an HS256 JWT signed with `key`, or null: any other algorithm (`none`, HS512,
 * RS256), a bad signature or a malformed token is refused alike. Time claims are checked by
 * the caller, which knows its leeway.
 */
export function verifyJwt(key: Buffer, token: string): Record<string, unknown> | null {
  let parsed: ReturnType<typeof parseJWT>;
  try {
    parsed = parseJWT(token);
  } catch {
    return null;
  }
  const [header, payload, signature, message] = parsed;
  if ((header as { alg?: unknown }).alg !== 'HS256') return null;
  if (!equalBytes(signature, hmacSha256(key, message))) return null;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  return payload as Record<string, unknown>;
}
