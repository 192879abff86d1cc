import { createHash } from 'node:crypto';

/** A strong ETag of a JSON body: the same answer always has the same tag. */
export function etagOf(json: string): string {
  return `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
}

/**
 * RFC 9110 §13.1.2: `If-None-Match` matches with the weak comparison, against `*` or any
 * tag of the list.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const mine = opaque(etag);
  return header.split(',').some((tag) => opaque(tag) === mine);
}
