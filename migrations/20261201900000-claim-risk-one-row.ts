import { type Kysely, sql } from 'kysely';

/**
 * `claim_risk` answers one row, but a function returning a table is planned at 1,000 rows
 * unless it says otherwise. The filing's statement joins it to the claim's insert, so the
 * planner took the claim for a thousand and planned the statement's later parts for that: the
 * D53 notices of a filed claim as hash joins over sequential scans of every store and every
 * dashboard user, read in full at each filing, and the webhook fan-out behind a Memoize. Said
 * to answer one row, the filing's plan is that of a filing without the risk, plus its call.
 */
const SIGNATURE = `claim_risk(jsonb, text, text, text, timestamptz, text, text, text[], int[], text[], text[],
  boolean, text[], boolean, boolean)`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql.raw(`alter function ${SIGNATURE} rows 1`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw(`alter function ${SIGNATURE} rows 1000`).execute(db);
}
