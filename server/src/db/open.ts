import type { Config } from '../config';
import { createDb, type Db } from './database';
import type { EmbeddedDatabase } from './embedded';
import { migrateToLatest } from './migrate';
import { reachesTransactionPooler, TRANSACTION_POOLER_REFUSAL } from './pooler-check';

export interface OpenDatabase {
  db: Db;
  /** The connection string (with credentials: never log it). */
  url: string;
  /** D48: where what needs a session connects (LISTEN, the job queue, migrations); `url` unless DATABASE_DIRECT_URL. */
  directUrl: string;
  /** D48: `url` names a pooler in transaction mode. */
  transactionPooler: boolean;
  /** Where the data lives, without credentials, for logs. */
  description: string;
  close(): Promise<void>;
}

/**
 * The database `pnpm start` and `pnpm cli` share: DATABASE_URL when given, else the embedded
 * PostgreSQL in DATA_DIR (joined when another process already runs it). Migrated on open,
 * unless `migrate` is false (the workers of a supervisor that migrated it already). `opened`
 * is the connection string of a database another process opened for this one (a supervisor
 * for its children): used as it is, never started here.
 */
export async function openDatabase(
  config: Config,
  log: (m: string) => void = () => {},
  { migrate = true, opened }: { migrate?: boolean; opened?: string } = {},
): Promise<OpenDatabase> {
  const embedded = config.databaseUrl || opened ? null : await openEmbedded(config.dataDir, log);
  const url = opened ?? config.databaseUrl ?? embedded!.url;
  const directUrl = config.databaseDirectUrl ?? url;
  const transactionPooler = config.databasePooler === 'transaction';
  // D48: never half-work behind a transaction pooler; the embedded database has none, and a
  // supervisor's children join what it checked. A database out of reach decides nothing here:
  // the process starts and answers 503 (D46).
  if (config.databaseUrl && !opened && !transactionPooler && (await reachesTransactionPooler(url).catch(() => false)))
    throw new Error(TRANSACTION_POOLER_REFUSAL);
  const db = createDb(url, { transactionPooler, directConnectionString: directUrl });
  try {
    if (migrate) await migrateDirectly(db, directUrl, transactionPooler);
  } catch (err) {
    await db.destroy();
    await embedded?.stop();
    throw err;
  }
  const where = new URL(url);
  return {
    db,
    url,
    directUrl,
    transactionPooler,
    description: config.databaseUrl
      ? `PostgreSQL at ${where.hostname}:${where.port || 5432}${where.pathname}`
      : `embedded PostgreSQL in ${config.dataDir}/postgres on port ${where.port}${embedded?.owned ? '' : ' (joined)'}`,
    async close() {
      await db.destroy();
      await embedded?.stop();
    },
  };
}

/** Migrations hold a session (DDL, locks): behind a transaction pooler they connect directly (D48). */
async function migrateDirectly(db: Db, directUrl: string, transactionPooler: boolean): Promise<void> {
  if (!transactionPooler) {
    await migrateToLatest(db);
    return;
  }
  const direct = createDb(directUrl, { max: 1, applicationName: 'protection-service-migrate' });
  try {
    await migrateToLatest(direct);
  } finally {
    await direct.destroy();
  }
}

/**
 * The embedded PostgreSQL, loaded only when used: it is a development dependency, so the
 * production install (`pnpm deploy --prod`, the Dockerfile) carries no database binaries and
 * needs DATABASE_URL.
 */
async function openEmbedded(dataDir: string, log: (m: string) => void): Promise<EmbeddedDatabase> {
  let embedded: typeof import('./embedded');
  try {
    embedded = await import('./embedded');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new Error('DATABASE_URL is required: this installation has no embedded PostgreSQL');
  }
  return embedded.openEmbeddedPostgres({ dataDir, log });
}
