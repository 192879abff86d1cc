import { type Kysely, sql } from 'kysely';

/**
 * D57: the reuse search runs when a photo is stored, not when a claim is filed. Each stored
 * photo's matches (the store's other photos within 6 bits, by the closest of the four
 * full/centre distances) are kept in `file_matches`, both ways, so a filing reads its photos'
 * matches by key instead of searching the store's photos at every claim. The band indexes now
 * hold every hashed photo, attached or not: a photo stored today may be attached tomorrow.
 * The matches of the photos stored before are found here, with the statement the service runs
 * at upload (frozen in this file's words): about 2 to 3 ms a photo in a store of 100,000
 * (`pnpm bench risk`), so some minutes for a store that large.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table file_matches (
      file_id text not null references files (id) on delete cascade,
      match_id text not null references files (id) on delete cascade,
      bits smallint not null check (bits between 0 and 64),
      primary key (file_id, match_id)
    );
    create index file_matches_match_idx on file_matches (match_id);
  `.execute(db);
  await replaceBandIndexes(db, '');
  // Every pair of the photos stored so far, within a store, found from both sides.
  await sql`
    insert into file_matches (file_id, match_id, bits)
    select a.id, o.id, min(${sql.raw(distance('o'))}) as bits
    from files a
    cross join lateral (values (a.perceptual_hash), (a.perceptual_hash_centre)) m (h)
    cross join lateral (${sql.raw(candidates('a'))}) o
    where a.perceptual_hash is not null and m.h is not null and o.id <> a.id and ${sql.raw(distance('o'))} <= 6
    group by a.id, o.id
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table file_matches`.execute(db);
  await replaceBandIndexes(db, ' and claim_id is not null');
}

/** The eight band indexes made again, each over the hashed photos and `also`. */
async function replaceBandIndexes(db: Kysely<any>, also: string): Promise<void> {
  for (const hash of ['perceptual_hash', 'perceptual_hash_centre']) {
    const prefix = hash === 'perceptual_hash' ? 'files_phash' : 'files_phash_centre';
    for (const [n, band] of BANDS.entries()) {
      await sql`drop index ${sql.raw(`${prefix}_band${n}_idx`)}`.execute(db);
      await sql`
        create index ${sql.raw(`${prefix}_band${n}_idx`)} on files (store_id, ${sql.raw(band(hash))})
          where ${sql.raw(hash)} is not null${sql.raw(also)}`.execute(db);
    }
  }
}

/** The four 16-bit bands of a hash column, as the indexes are written. */
const BANDS = [
  (h: string) => `((${h} >> 48) & 65535)`,
  (h: string) => `((${h} >> 32) & 65535)`,
  (h: string) => `((${h} >> 16) & 65535)`,
  (h: string) => `(${h} & 65535)`,
];

/** The 17 masks of a band at most one bit away. */
const MASKS = `array[0, ${Array.from({ length: 16 }, (_, i) => 2 ** i).join(', ')}]::bigint[]`;

/** The store's photos with a band, of either hash, at most one bit from `m.h`'s (the photo `a`'s). */
function candidates(a: string): string {
  const probes = ['perceptual_hash', 'perceptual_hash_centre'].flatMap((column) =>
    BANDS.map(
      (band) => `select f.id, f.perceptual_hash, f.perceptual_hash_centre from files f
        where f.store_id = ${a}.store_id and f.${column} is not null
          and ${band(`f.${column}`)} = any(array(select ${band('m.h')} # k from unnest(${MASKS}) k))`,
    ),
  );
  return probes.join(' union ');
}

/** The closest distance of `o`'s two hashes to `m.h`. */
function distance(o: string): string {
  return `least(bit_count((${o}.perceptual_hash # m.h)::bit(64)),
    coalesce(bit_count((${o}.perceptual_hash_centre # m.h)::bit(64)), 64))`;
}
