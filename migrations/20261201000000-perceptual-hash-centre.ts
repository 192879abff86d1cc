import { type Kysely, sql } from 'kysely';

/**
 * D57: the perceptual hash of a photo's centre (its middle 90 %), beside the hash of the whole
 * photo, so the reuse search compares full and centre hashes both ways and finds a copy cropped
 * by up to 5 % a side or more, which the full hash alone misses past 2 %. Indexed as the full
 * hash is: four 16-bit bands, each with the store, attached photos only. Photos stored before
 * it have none and are compared by their full hash alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table files add column perceptual_hash_centre bigint;
    create index files_phash_centre_band0_idx on files (store_id, ((perceptual_hash_centre >> 48) & 65535))
      where perceptual_hash_centre is not null and claim_id is not null;
    create index files_phash_centre_band1_idx on files (store_id, ((perceptual_hash_centre >> 32) & 65535))
      where perceptual_hash_centre is not null and claim_id is not null;
    create index files_phash_centre_band2_idx on files (store_id, ((perceptual_hash_centre >> 16) & 65535))
      where perceptual_hash_centre is not null and claim_id is not null;
    create index files_phash_centre_band3_idx on files (store_id, (perceptual_hash_centre & 65535))
      where perceptual_hash_centre is not null and claim_id is not null;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop index files_phash_centre_band3_idx;
    drop index files_phash_centre_band2_idx;
    drop index files_phash_centre_band1_idx;
    drop index files_phash_centre_band0_idx;
    alter table files drop column perceptual_hash_centre;
  `.execute(db);
}
