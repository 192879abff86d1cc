import { sql } from 'kysely';
import { type Db, prepared } from '../../../db/database';
import { riskStatement } from './signals';

/** How many claims one run of the sweep computes again, at most. */
const BATCH = 100;

/**
 * D57: the claims whose risk is to be computed again (`claim_risk_pending`, written by the
 * triggers on messages, files and packages), computed by the delivering processes' sweep,
 * once a second. Each claim is one statement that writes its risk and takes it off the list
 * together, so a sweep that dies between claims (its process killed, its connection cut)
 * leaves every claim it had not computed on the list for the next. A statement takes the claim
 * off only at the count of changes its own snapshot read: a change committed after it queues
 * the claim again. Two processes computing one claim at once write the same risk. A claim
 * whose statement fails does not hold up the others of the batch: the first failure is thrown
 * once they have run. Answers how many claims were computed.
 */
export async function recomputePendingRisk(db: Db): Promise<number> {
  const { rows } = await sql<{ claimId: string }>`
    select claim_id from claim_risk_pending order by queued_at, claim_id limit ${BATCH}
  `.execute(db);
  let computed = 0;
  let failure: unknown;
  for (const { claimId } of rows) {
    try {
      await prepared(riskStatement(claimId)).execute(db);
      computed++;
    } catch (err) {
      failure ??= err;
    }
  }
  if (failure !== undefined) throw failure;
  return computed;
}
