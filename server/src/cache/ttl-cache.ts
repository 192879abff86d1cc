/**
 * A bounded in-process cache whose entries expire after the lifetime given when each is set.
 * Bounded twice, whatever callers put in it: at most `maxEntries` entries and at most
 * `maxBytes` of what `sizeOf` counts; the oldest entries go first (Map keeps insertion order).
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number; size: number }>();
  private bytes = 0;

  constructor(
    private readonly sizeOf: (key: string, value: V) => number = () => 0,
    private readonly maxEntries = 10_000,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  get(key: string, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, ttlMs: number, now = Date.now()): void {
    const size = this.sizeOf(key, value);
    this.delete(key);
    if (size > this.maxBytes) return;
    while (this.entries.size >= this.maxEntries || this.bytes + size > this.maxBytes) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.delete(oldest);
    }
    this.entries.set(key, { value, expires: now + ttlMs, size });
    this.bytes += size;
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.size;
  }

  /** Makes every entry expire by `until` at the latest. */
  expireBy(until: number): void {
    for (const entry of this.entries.values()) entry.expires = Math.min(entry.expires, until);
  }

  /** Drops every entry whose value matches. */
  deleteWhere(match: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (match(entry.value)) this.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
