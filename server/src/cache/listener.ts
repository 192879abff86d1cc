import pg from 'pg';
import type { Logger } from 'pino';
import { connectionStringOf, type Db } from '../db/database';
import type { RevocationFeed } from '../domain/auth/revocations';
import { CHANGES_CHANNEL, type Change, parseChange } from './changes';
import type { StoreCache } from './store-cache';
import { StoreChangeFeed } from './store-change-feed';

interface ChangeHandlers {
  /** A change announced by any process (this one included), after its transaction committed. */
  onChange(change: Change): void;
  /** Listening (again): announcements may have been missed while it was down. */
  onUp(): void;
  /** The connection dropped: until `onUp`, nothing is heard. */
  onDown(): void;
}

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

/**
 * The one LISTEN connection of a server process (D13, D29): a dedicated `pg.Client`, outside
 * the query pool, subscribed to the change channel. When it drops it says so (`onDown`) and
 * re-subscribes with exponential backoff; `onUp` tells the listeners to resynchronise.
 */
export class ChangeListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private backoff = MIN_BACKOFF_MS;
  private retry: NodeJS.Timeout | undefined;
  private up = false;

  constructor(
    private readonly connectionString: string,
    private readonly handlers: ChangeHandlers,
    private readonly logger?: Logger,
  ) {
    void this.connect();
  }

  get listening(): boolean {
    return this.up;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({
      connectionString: this.connectionString,
      application_name: 'protection-service-listener',
      keepAlive: true,
    });
    this.client = client;
    let lost = false;
    const drop = (err?: Error) => {
      if (lost) return;
      lost = true;
      client.removeAllListeners('notification');
      client.end().catch(() => {});
      if (this.client === client) this.client = undefined;
      if (this.up) {
        this.up = false;
        this.logger?.warn({ err: err?.message }, 'change listener lost; public reads use short cache lifetimes');
        this.handlers.onDown();
      }
      this.schedule();
    };
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', (msg) => {
      if (msg.channel !== CHANGES_CHANNEL) return;
      const change = parseChange(msg.payload);
      if (change) this.handlers.onChange(change);
    });
    try {
      await client.connect();
      await client.query(`listen ${CHANGES_CHANNEL}`);
      if (lost || this.stopped) {
        if (this.stopped) await client.end().catch(() => {});
        return;
      }
      this.up = true;
      this.backoff = MIN_BACKOFF_MS;
      this.handlers.onUp();
    } catch (err) {
      drop(err as Error);
    }
  }

  private schedule(): void {
    if (this.stopped || this.retry) return;
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.connect();
    }, delay);
    this.retry.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    this.up = false;
    await client?.end().catch(() => {});
  }
}

/**
 * What a server process does with what it hears: a store's change drops that store's cached
 * values (once, through the store-change feed, which also finds the changes whose
 * notification never came); a revocation re-reads the feed. Coming (back) up, nothing heard
 * before can be trusted to be complete: caches start over long-lived and the feed is re-read;
 * going down, caches fall back to short lifetimes (D29) and the feed to its periodic re-read
 * (D13).
 */
export function followChanges(
  db: Db,
  targets: {
    storeCaches: readonly Pick<StoreCache<never>, 'invalidateStore' | 'setLongLived'>[];
    revocations: RevocationFeed;
  },
  logger?: Logger,
): { stop(): Promise<void> } {
  const { storeCaches, revocations } = targets;
  const feed = new StoreChangeFeed(
    db,
    (storeId) => {
      for (const c of storeCaches) c.invalidateStore(storeId);
    },
    undefined,
    logger,
  );
  const reread = () => revocations.refresh().catch(() => {});
  const connectionString = connectionStringOf(db);
  const listener =
    connectionString === undefined
      ? undefined
      : new ChangeListener(
          connectionString,
          {
            onChange(change) {
              if (change.kind === 'store') feed.apply(change.storeId, change.id);
              else void reread();
            },
            onUp() {
              for (const c of storeCaches) c.setLongLived(true);
              void reread();
            },
            onDown() {
              for (const c of storeCaches) c.setLongLived(false);
            },
          },
          logger,
        );
  return {
    async stop() {
      await Promise.all([feed.stop(), listener?.stop()]);
    },
  };
}
