import { sql } from 'kysely';
import { type Db, prepared } from '../../../db/database';
import { riskStatement } from './signals';

/** How many claims one run of the sweep computes again, at most. */
const BATCH = 100;

/**
 * D57: the claims whose risk is to be computed again (`claim_risk_pending`, written by the
 * triggers on messages, files and packages), computed by the delivering processes' sweep,
 * once a second. Each claim's statement takes it off the list only as far as its own snapshot
 * saw: a change committed after it queues the claim again. Two processes computing one claim
 * at once write the same risk. Answers how many claims were computed.
 */
export async function recomputePendingRisk(db: Db): Promise<number> {
  const { rows } = await sql<{ claimId: string }>`
    select claim_id from claim_risk_pending order by queued_at, claim_id limit ${BATCH}
  `.execute(db);
  for (const { claimId } of rows) await prepared(riskStatement(claimId)).execute(db);
  return rows.length;
}
