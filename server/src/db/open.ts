import type { Config } from '../config';
import { createDb, type Db } from './database';
import { openEmbeddedPostgres } from './embedded';
import { migrateToLatest } from './migrate';

export interface OpenDatabase {
  db: Db;
  /** The connection string (with credentials: never log it). */
  url: string;
  /** Where the data lives, without credentials, for logs. */
  description: string;
  close(): Promise<void>;
}

/**
 * The database `pnpm start` and `pnpm cli` share: DATABASE_URL when given, else the embedded
 * PostgreSQL in DATA_DIR (joined when another process already runs it). Migrated on open.
 */
export async function openDatabase(config: Config, log: (m: string) => void = () => {}): Promise<OpenDatabase> {
  const embedded = config.databaseUrl ? null : await openEmbeddedPostgres({ dataDir: config.dataDir, log });
  const url = config.databaseUrl ?? embedded!.url;
  const db = createDb(url);
  try {
    await migrateToLatest(db, url);
  } catch (err) {
    await db.destroy();
    await embedded?.stop();
    throw err;
  }
  const where = new URL(url);
  return {
    db,
    url,
    description: embedded
      ? `embedded PostgreSQL in ${config.dataDir}/postgres on port ${where.port}${embedded.owned ? '' : ' (joined)'}`
      : `PostgreSQL at ${where.hostname}:${where.port || 5432}${where.pathname}`,
    async close() {
      await db.destroy();
      await embedded?.stop();
    },
  };
}
