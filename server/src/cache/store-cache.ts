import { TtlCache } from './ttl-cache';

/**
 * In-process lifetimes of what is derived from a store's pricing, widgets, contexts and
 * installs (D29). While the process hears the change channel (./listener.ts) an entry
 * may stay an hour: every write that changes it drops it on every process. While the channel
 * is down, entries live only seconds, so a write is still visible within seconds.
 */
export const STORE_CACHE_LONG_TTL_MS = 3_600_000;
export const STORE_CACHE_SHORT_TTL_MS = 5_000;
/**
 * When the channel is lost, what is already cached stays at most this long (D46): through a
 * database restart or failover the shopper's read keeps answering from memory, while no
 * store can change (or, should only this process be cut off, for no longer than a browser
 * may keep the same answer anyway: `Cache-Control: max-age=60`). Changes made meanwhile still
 * drop their entries through the store-change feed, once a second, while it can read.
 */
export const STORE_CACHE_KEPT_WHEN_LOST_MS = 60_000;

/**
 * A bounded cache of values that belong to one store each, dropped when that store changes
 * (`invalidateStore`, on a `store` announcement of ./changes.ts). One mechanism for every
 * such cache: the public read answers, the quote's rule sets and the merchant settings.
 */
export class StoreCache<V> {
  private readonly entries: TtlCache<{ storeId: string; value: V }>;
  /** Bumped by every invalidation: a value read before one is not kept (see `set`). */
  private generation = 0;
  private ttlMs = STORE_CACHE_SHORT_TTL_MS;

  constructor(options: { sizeOf?: (key: string, value: V) => number; maxEntries?: number; maxBytes?: number } = {}) {
    const sizeOf = options.sizeOf;
    this.entries = new TtlCache(
      sizeOf ? (key, e) => sizeOf(key, e.value) : undefined,
      options.maxEntries ?? 10_000,
      options.maxBytes,
    );
  }

  /**
   * Whether entries may live long (the change channel is heard) or only seconds. Coming up,
   * everything is dropped (what was missed is unknown); going down, what is cached is kept
   * for STORE_CACHE_KEPT_WHEN_LOST_MS at most.
   */
  setLongLived(long: boolean, now = Date.now()): void {
    this.ttlMs = long ? STORE_CACHE_LONG_TTL_MS : STORE_CACHE_SHORT_TTL_MS;
    if (long) this.clear();
    else this.entries.expireBy(now + STORE_CACHE_KEPT_WHEN_LOST_MS);
  }

  get lifetimeMs(): number {
    return this.ttlMs;
  }

  get stats(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.entries.totalBytes };
  }

  /** Taken before reading the database for a value, handed back to `set`. */
  get mark(): number {
    return this.generation;
  }

  get(key: string, now = Date.now()): V | undefined {
    return this.entries.get(key, now)?.value;
  }

  /**
   * Keeps a value of `storeId`, unless an invalidation came in since `mark` was taken: the
   * value may then predate the write that caused it.
   */
  set(key: string, storeId: string, value: V, mark: number): void {
    if (mark === this.generation) this.entries.set(key, { storeId, value }, this.ttlMs);
  }

  /**
   * The value under `key`, else what `read` answers, kept unless the store changed while it
   * was read. Nothing is kept for undefined (a missing store stays missing for no one).
   */
  async load(key: string, storeId: string, read: () => Promise<V | undefined>): Promise<V | undefined> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const mark = this.mark;
    const value = await read();
    if (value !== undefined) this.set(key, storeId, value, mark);
    return value;
  }

  invalidateStore(storeId: string): void {
    this.generation++;
    this.entries.deleteWhere((e) => e.storeId === storeId);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
