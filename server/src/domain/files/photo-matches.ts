import { type RawBuilder, sql } from 'kysely';
import { type Db, prepared } from '../../db/database';
import { transact } from '../../db/transact';

/**
 * D57's reuse search, run once per photo when it is stored (and again when its centre hash is
 * filled in): the store's other photos within MATCH_BITS of it, attached or not, kept in
 * `file_matches` both ways. A filing then reads its photos' matches by key (`photo_reused`,
 * claims/risk/signals.ts) instead of searching the store's photos at every claim.
 *
 * Each photo has two hashes, of the whole photo and of its centre (a crop of a few per cent a
 * side matches full to centre); two photos are as far apart as the closest of the four
 * distances. Candidates come from the eight band indexes, four per hash: within 6 bits, some
 * band of the two hashes differs in at most one bit, so a candidate's band, of either hash,
 * equals one of the 17 values at most one bit from one of the photo's; then the exact
 * distance (`bit_count` of the exclusive or).
 *
 * Photos of one store are matched one at a time (`writeAndMatch`, its lock held to the commit): two
 * uploads at once would each miss the other, neither seeing the other's row.
 */

/** D57's photo_reused: two photos match when their hashes are at most this many bits apart. */
export const MATCH_BITS = 6;

/** The 17 masks of a 16-bit band at most one bit away: none, and each single bit. */
const BAND_MASKS = [0, ...Array.from({ length: 16 }, (_, i) => 2 ** i)];
/** The bands of `files_phash_band*_idx`, written exactly as their index expressions. */
const BANDS = [
  (h: RawBuilder<unknown>) => sql`((${h} >> 48) & 65535)`,
  (h: RawBuilder<unknown>) => sql`((${h} >> 32) & 65535)`,
  (h: RawBuilder<unknown>) => sql`((${h} >> 16) & 65535)`,
  (h: RawBuilder<unknown>) => sql`(${h} & 65535)`,
];

/**
 * Writes a photo of the store (`write`: its insert, or the update of its hashes) and matches
 * it (`fileId`) from its hashes as written, in one transaction holding the store's matching
 * lock to the commit. Answers what `write` answered.
 */
export async function writeAndMatch<T>(
  db: Db,
  storeId: string,
  fileId: string,
  write: (trx: Db) => Promise<T>,
): Promise<T> {
  return transact(db, async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended('file_matches:' || ${storeId}::text, 0))`.execute(trx);
    const written = await write(trx);
    await prepared(matchStatement(fileId)).execute(trx);
    return written;
  });
}

/**
 * The reuse search of the stored photo `fileId` (none for a file without hashes): the store's
 * other photos within MATCH_BITS, attached or not, and the pairs kept, both ways (a pair kept
 * already takes the closer distance; a second hash only brings photos closer). Answers how
 * many it matched (`matches`).
 */
export function matchStatement(fileId: string): RawBuilder<{ matches: number }> {
  const probe = (column: RawBuilder<unknown>) =>
    BANDS.map(
      (band) => sql`select f.id, f.perceptual_hash, f.perceptual_hash_centre from files f
      where f.store_id = m.store_id and ${column} is not null
        and ${band(column)} = any(array(select ${band(sql`m.h`)} # k from unnest(${BAND_MASKS}::bigint[]) k))`,
    );
  const candidates = [...probe(sql`f.perceptual_hash`), ...probe(sql`f.perceptual_hash_centre`)];
  const bits = sql`least(bit_count((o.perceptual_hash # m.h)::bit(64)),
        coalesce(bit_count((o.perceptual_hash_centre # m.h)::bit(64)), 64))`;
  return sql<{ matches: number }>`
    with photo_hashes as (
      select distinct c.id, c.store_id, v.h from files c
      cross join lateral (values (c.perceptual_hash), (c.perceptual_hash_centre)) v (h)
      where c.id = ${fileId} and v.h is not null
    ), matched as (
      select m.id as file_id, o.id, min(${bits}) as bits
      from photo_hashes m
      cross join lateral (${sql.join(candidates, sql` union `)}) o
      where o.id <> m.id and ${bits} <= ${MATCH_BITS}
      group by m.id, o.id
    ), kept as (
      insert into file_matches as k (file_id, match_id, bits)
      select file_id, id, bits from matched
      union all
      select id, file_id, bits from matched
      on conflict (file_id, match_id) do update set bits = least(k.bits, excluded.bits)
    )
    select count(*)::int as matches from matched`;
}
