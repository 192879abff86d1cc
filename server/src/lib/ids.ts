import { randomFillSync } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** Random bytes drawn from the CSPRNG 4 KiB at a time: one system call per 273 ids, not one each. */
const pool = Buffer.alloc(4095);
let offset = pool.length;

/**
 * A new resource id: a short type prefix and 120 random bits in lower-case base32 without
 * padding (`st_…`, `rs_…`), 24 characters.
 */
export function newId(prefix: string): string {
  if (offset + 15 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  let id = `${prefix}_`;
  // 15 bytes are 3 groups of 5 bytes, each 8 characters of 5 bits.
  for (let g = 0; g < 15; g += 5) {
    const b = offset + g;
    const hi = pool[b]! * 0x100 + pool[b + 1]!; // 16 bits
    const lo = pool[b + 2]! * 0x10000 + pool[b + 3]! * 0x100 + pool[b + 4]!; // 24 bits
    id +=
      ALPHABET[hi >>> 11]! +
      ALPHABET[(hi >>> 6) & 31]! +
      ALPHABET[(hi >>> 1) & 31]! +
      ALPHABET[((hi & 1) << 4) | (lo >>> 20)]! +
      ALPHABET[(lo >>> 15) & 31]! +
      ALPHABET[(lo >>> 10) & 31]! +
      ALPHABET[(lo >>> 5) & 31]! +
      ALPHABET[lo & 31]!;
  }
  offset += 15;
  return id;
}
