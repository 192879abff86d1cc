import { type RawBuilder, sql } from 'kysely';

/**
 * A statement (or the last part of one, after its CTEs) that adds one graphile-worker job of
 * `task` per row of `rows` (columns `payload` json and `run_at` timestamptz, null for now),
 * all in one `add_jobs` call, so one NOTIFY, and answers how many as `queued`. When `rows` is
 * empty it selects nothing and `add_jobs` is not called (it would notify even for no job).
 */
export function addJobs(task: string, rows: RawBuilder<unknown>) {
  return sql<{ queued: number }>`
    select (select count(*) from graphile_worker.add_jobs(s.specs))::int as queued
    from (
      select array_agg(row(${task}, r.payload, null, r.run_at, null, null, null, null)::graphile_worker.job_spec) as specs
      from ${rows} r
    ) s
    where s.specs is not null`;
}
