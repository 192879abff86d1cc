import { deriveKey, equalBytes, hmacSha256 } from './crypto';

/**
 * Opaque keyset cursors (D24): the position of one row in an order by `(created_at, id)`,
 * signed with a key derived from the server key and bound to the query it came from (the
 * list, the store and every filter). A cursor that was altered, forged, or carried over to
 * another query or store does not verify, and the list answers 400 instead of reading from a
 * position nobody was given.
 *
 * Shape: `<base64url of JSON [createdAt, id]>.<base64url of the first 16 bytes of
 * HMAC-SHA256(key, position + "\n" + binding)>`. `createdAt` keeps the row's microseconds
 * (Postgres precision), so a keyset comparison never skips rows that share a millisecond.
 */
export interface Position {
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds). */
  createdAt: string;
  id: string;
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const MAC_BYTES = 16;

export class CursorCodec {
  readonly #key: Buffer;

  constructor(secretKey: Buffer) {
    this.#key = deriveKey(secretKey, 'page-cursor');
  }

  /** The MAC as text: compared as text, so no second spelling of one MAC (base64 padding bits) verifies. */
  #mac(position: string, binding: string): string {
    return hmacSha256(this.#key, `${position}\n${binding}`).subarray(0, MAC_BYTES).toString('base64url');
  }

  encode(position: Position, binding: string): string {
    const text = Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
    return `${text}.${this.#mac(text, binding)}`;
  }

  /** The position a cursor names, or undefined when it is not one this query issued. */
  decode(cursor: string, binding: string): Position | undefined {
    const [text, mac, extra] = cursor.split('.');
    if (!text || !mac || extra !== undefined) return undefined;
    if (!equalBytes(Buffer.from(mac), Buffer.from(this.#mac(text, binding)))) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!Array.isArray(value) || value.length !== 2) return undefined;
    const [createdAt, id] = value as unknown[];
    if (typeof createdAt !== 'string' || !TIMESTAMP.test(createdAt) || typeof id !== 'string') return undefined;
    return { createdAt, id };
  }
}
