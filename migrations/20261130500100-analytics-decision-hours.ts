import { type Kysely, sql } from 'kysely';

/** D22: the states a first decision moves a claim to. */
const DECIDING = `('APPROVED', 'RESOLVED', 'RESOLVED_BY_BRAND', 'DENIED', 'DISMISSED')`;

/** The columns of a state change that mark its claim changed for the rollups, before and after. */
const BEFORE = ['id', 'claim_id', 'to_state'];
const AFTER = [...BEFORE, 'created_at'];

const changedTrigger = (columns: string[]) => {
  const row = (r: string) => `(${columns.map((c) => `${r}.${c}`).join(', ')})`;
  return `
    drop trigger analytics_changed on claim_state_changes;
    create trigger analytics_changed before update on claim_state_changes for each row
      when (${row('old')} is distinct from ${row('new')}) execute function analytics_changed();`;
};

/**
 * D52's median hours to a first decision, read from the fold's claim ledger instead of every
 * claim of the period and a lookup of its first decision each: the ledger keeps, per counted
 * claim, the hours from its filing to its first decision (null while undecided), read by
 * store and day through an index that carries them. A state change's time now marks its claim
 * changed too, as its state does. The ledger's rows get their hours from the rows as they are
 * now, which for a claim not changed since the watermark is what the fold counted (a claim
 * changed since is read from its rows by the reader anyway).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql
    .raw(`
    alter table analytics_claim_counted add column decision_hours float8;
    ${changedTrigger(AFTER)}
    update analytics_claim_counted l set decision_hours = (extract(epoch from d.created_at - c.created_at) / 3600)::float8
    from claims c cross join lateral (
      select s.created_at from claim_state_changes s
      where s.claim_id = c.id and s.to_state in ${DECIDING} order by s.id limit 1
    ) d
    where c.id = l.claim_id;
    create index analytics_claim_counted_period_idx on analytics_claim_counted (store_id, day) include (decision_hours);`)
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql
    .raw(`
    drop index analytics_claim_counted_period_idx;
    alter table analytics_claim_counted drop column decision_hours;
    ${changedTrigger(BEFORE)}`)
    .execute(db);
}
