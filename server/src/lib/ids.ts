import { randomBytes } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';

/** A new resource id: a short type prefix and 120 random bits (`st_…`, `rs_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${encodeBase32LowerCaseNoPadding(randomBytes(15))}`;
}
