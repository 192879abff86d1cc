import { type Kysely, sql } from 'kysely';

/**
 * D52's fold in bounded rounds: a fold that has more to count than one round takes (the first
 * after 20261129000000 counts every order, claim and resolution there is) keeps, between its
 * rounds, the watermark it is folding up to (`fold_to`) and, per day table, the last id it
 * counted (`fold_after`: the table's name to that id, or to null once the table is done).
 * Each round is a short transaction of its own; the watermark moves only when every table is
 * done, so a reader counts everything changed since the old one until then, as before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table analytics_fold add column fold_to xid8, add column fold_after jsonb`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table analytics_fold drop column fold_to, drop column fold_after`.execute(db);
}
