import { type RawBuilder, sql } from 'kysely';

/**
 * D57: queues for the risk sweep the claims `claimIds` selects (one column, the claim ids),
 * as the tables' triggers do: a claim queued already counts one more change, so a sweep that
 * read it before this change does not take it off the queue (`riskStatement`'s `taken`).
 * Order the ids when several statements may queue the same claims at once, as the triggers do.
 */
export function queueClaimRisk(claimIds: RawBuilder<unknown>) {
  return sql`insert into claim_risk_pending (claim_id) ${claimIds}
      on conflict (claim_id) do update set changes = claim_risk_pending.changes + 1`;
}
