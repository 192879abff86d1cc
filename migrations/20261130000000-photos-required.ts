import { type Kysely, sql } from 'kysely';

/**
 * D56: the issue types for which the shopper's claim form asks for photos, a merchant
 * setting written with D53's settings PATCH. Stores start with the types peers require
 * photos for: damaged, defective and wrong items.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table merchant_settings
      add column photos_required_for text[] not null default '{DAMAGED,DEFECTIVE_ITEM,WRONG_ITEM}'
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table merchant_settings drop column photos_required_for`.execute(db);
}
