import { migrations } from '@protection-service/migrations';
import { runMigrations } from 'graphile-worker';
import { Migrator } from 'kysely/migration';
import { connectionStringOf, type Db } from './database';
import { queueLogger } from './queue-logger';

/**
 * Brings the schema up to date: first the job queue's own schema (graphile-worker, which
 * delivers webhooks; delivery jobs are queued with its `add_jobs`), then ours. Both are safe when several
 * processes start at once (graphile-worker retries a clash; Kysely's migrator holds an
 * advisory lock).
 */
export async function migrateToLatest(db: Db): Promise<string[]> {
  // The queue's migrations run on a connection of their own, to the same database.
  const connectionString = connectionStringOf(db);
  if (!connectionString) throw new Error('migrateToLatest needs a database made by createDb');
  await runMigrations({ connectionString, logger: queueLogger() });
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return (results ?? []).map((r) => r.migrationName);
}
