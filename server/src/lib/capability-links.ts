import { randomBytes } from 'node:crypto';
import { deriveKey, equalBytes, hmacSha256 } from './crypto';

/**
 * Capability links (D41, D53): a token that is a random id (64 hex digits) followed by a MAC
 * of it under a key derived from SECRET_KEY for one purpose. The database holds only the
 * random half, so a dump opens nothing; the token names nothing but itself.
 */

export type LinkPurpose = 'claim-link' | 'member-invitation' | 'file-link';

const LINK_ID = /^[0-9a-f]{64}$/;
/** 16 bytes of HMAC-SHA256, base64url: 128 bits an attacker must guess. */
const MAC_LENGTH = 22;
const TOKEN = /^([0-9a-f]{64})([A-Za-z0-9_-]{22})$/;

/** What builds and checks one purpose's links: its derived key and the public base URL. */
export interface CapabilityLinks {
  purpose: LinkPurpose;
  key: Buffer;
  baseUrl: string;
}

export function capabilityLinks(secretKey: Buffer, purpose: LinkPurpose, publicBaseUrl: string): CapabilityLinks {
  return { purpose, key: deriveKey(secretKey, purpose), baseUrl: publicBaseUrl.replace(/\/+$/, '') };
}

/** A new random half: 256 bits. */
export function newLinkId(): string {
  return randomBytes(32).toString('hex');
}

function mac(links: CapabilityLinks, linkId: string): string {
  return hmacSha256(links.key, `${links.purpose}:${linkId}`).subarray(0, 16).toString('base64url');
}

/** The token of a link id. */
export function linkToken(links: CapabilityLinks, linkId: string): string {
  if (!LINK_ID.test(linkId)) throw new Error('malformed link id');
  return `${linkId}${mac(links, linkId)}`;
}

/** The link id a token carries when its MAC holds (constant-time), else undefined. */
export function linkIdOf(links: CapabilityLinks, token: string): string | undefined {
  const match = TOKEN.exec(token);
  if (!match) return undefined;
  const [, linkId, presented] = match as unknown as [string, string, string];
  const expected = Buffer.from(mac(links, linkId));
  return presented.length === MAC_LENGTH && equalBytes(Buffer.from(presented), expected) ? linkId : undefined;
}
