import { type Kysely, sql } from 'kysely';

/**
 * D57: the photos stored before their centre hash was kept (a full hash, no centre hash),
 * which the file sweep hashes from their stored bytes, a batch at a time. The index holds
 * only those, so it is empty once they are done and costs an upload nothing after.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index files_centre_hash_missing_idx on files (id)
      where perceptual_hash is not null and perceptual_hash_centre is null;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index files_centre_hash_missing_idx`.execute(db);
}
