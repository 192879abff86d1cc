import { createJWTSignatureMessage, encodeJWT } from '@oslojs/jwt';
import { equalBytes, hmacSha256 } from '../../lib/crypto';

const HEADER = JSON.stringify({ alg: 'HS256', typ: 'JWT' });

/** Signs claims as an HS256 JWT. */
export function signJwt(key: Buffer, claims: Record<string, unknown>): string {
  const payload = JSON.stringify(claims);
  return encodeJWT(HEADER, payload, hmacSha256(key, createJWTSignatureMessage(HEADER, payload)));
}

/** A compact HS256 JWT: three unpadded base64url segments, the signature 32 bytes (43 characters). */
const COMPACT_HS256 = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;

function decodeJson(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

/**
 * The claims of an HS256 JWT signed with `key`, or null: any other algorithm (`none`, HS512,
 * RS256), a bad signature or a malformed token is refused alike. Time claims are checked by
 * the caller, which knows its leeway. The signature is checked over the exact text of the
 * first two segments before anything is decoded; decoding uses Node's native base64url (it
 * runs on every authenticated request), after the strict shape check above.
 */
export function verifyJwt(key: Buffer, token: string): Record<string, unknown> | null {
  const match = COMPACT_HS256.exec(token);
  if (!match) return null;
  const [, headerPart, payloadPart, signaturePart] = match as unknown as [string, string, string, string];
  const expected = hmacSha256(key, `${headerPart}.${payloadPart}`);
  if (!equalBytes(Buffer.from(signaturePart, 'base64url'), expected)) return null;
  const header = decodeJson(headerPart);
  if ((header as { alg?: unknown } | null)?.alg !== 'HS256') return null;
  const payload = decodeJson(payloadPart);
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  return payload as Record<string, unknown>;
}
