import { type ApiVersion, isApiVersion } from '@protection-service/contract';
import type { Db } from '../db/database';
import { TtlCache } from './ttl-cache';

/** D44: a changed pin applies on every process within this long. */
export const PIN_LIFETIME_MS = 1000;

/**
 * The API version each app is pinned to (`apps.api_version`, D44), kept per process for at most
 * a second: a pin changed with `PATCH /v1/apps/:clientId` on any process applies everywhere
 * within 1 s, with no announcement to miss. A burst of calls of one app waits on one query.
 */
export class AppPins {
  private readonly known = new TtlCache<ApiVersion | null>((key) => key.length + 64, 100_000, 8 * 1024 * 1024);
  private readonly loading = new Map<string, Promise<ApiVersion | undefined>>();

  constructor(private readonly db: Db) {}

  pinOf(clientId: string): ApiVersion | undefined | Promise<ApiVersion | undefined> {
    const now = Date.now();
    const known = this.known.get(clientId, now);
    if (known !== undefined) return known ?? undefined;
    const pending = this.loading.get(clientId);
    if (pending) return pending;
    const load = this.db
      .selectFrom('apps')
      .select('apiVersion')
      .where('clientId', '=', clientId)
      .executeTakeFirst()
      .then((row) => {
        const pin = row && isApiVersion(row.apiVersion) ? row.apiVersion : null;
        this.known.set(clientId, pin, PIN_LIFETIME_MS);
        return pin ?? undefined;
      })
      .finally(() => this.loading.delete(clientId));
    this.loading.set(clientId, load);
    return load;
  }
}
