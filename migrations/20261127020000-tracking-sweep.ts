import { type Kysely, sql } from 'kysely';

/**
 * D54's sweep reads the packages still under way (bound, without a claim, not delivered) in
 * batches by id. Delivered and claimed packages pile up over the years while those under way
 * stay few: this index holds only the latter, in id order, so one batch's read walks its own
 * rows and never the delivered ones between them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index tracking_packages_sweep_idx on tracking_packages (id)
    where order_id is not null and claim_id is null and status <> 'delivered'
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index tracking_packages_sweep_idx`.execute(db);
}
