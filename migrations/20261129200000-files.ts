import { type Kysely, sql } from 'kysely';

/**
 * D56's files: a store's uploaded photos and receipts. The bytes live in the file storage
 * (`storage_key`), never here; `link_id` is the random half of the capability link (D41's
 * construction), unique so a link opens one file. A file is attached once, to one claim (an
 * item's image, or a message's media): `claim_id` with `attached_at`; files still unattached
 * after 24 hours are swept, which the partial index serves. `perceptual_hash` keeps a place for
 * a 64-bit difference hash of a photo, to find one reused on another claim; nothing fills it yet.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table files (
      id text primary key,
      store_id text not null references stores (id) on delete cascade,
      purpose text not null check (purpose in ('claim_evidence')),
      type text not null check (type in ('image/jpeg', 'image/png', 'image/webp', 'application/pdf')),
      size integer not null check (size > 0),
      sha256 text not null,
      width integer,
      height integer,
      link_id text not null unique,
      storage_key text not null,
      perceptual_hash bigint,
      claim_id text references claims (id) on delete set null,
      attached_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index files_unattached_idx on files (created_at) where attached_at is null;
    create index files_claim_idx on files (claim_id) where claim_id is not null;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table files`.execute(db);
}
