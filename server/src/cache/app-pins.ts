import { type ApiVersion, isApiVersion, LATEST_API_VERSION } from '@protection-service/contract';
import type { Logger } from 'pino';
import type { Db } from '../db/database';
import { type Loop, startLoop } from '../lib/loop';

/** How often each process re-reads the pins (D44: a changed pin applies everywhere within 1 s). */
const PIN_REFRESH_MS = 500;

/**
 * The API version each app is pinned to (`apps.api_version`, D44), kept in memory by every
 * process. Only the apps pinned to an older version are kept (an app not among them is on the
 * latest), and they are read again in one query every half second, off the request path: a
 * pin changed with `PATCH /v1/apps/:clientId` on any process applies everywhere within a
 * second, with no announcement to miss and no query in any request. Until the first read
 * answers, a request waits for it.
 */
export class AppPins {
  private older = new Map<string, ApiVersion>();
  private readonly ready: Promise<void>;
  private loaded = false;
  private readonly loop: Loop;

  constructor(
    private readonly db: Db,
    logger?: Logger,
    everyMs = PIN_REFRESH_MS,
  ) {
    this.ready = this.refresh();
    // A request waiting for the first read sees its failure; with none waiting (a process
    // stopped before its first request) there is no one to tell, and it is not unhandled.
    this.ready.catch(() => {});
    this.loop = startLoop('app pins refresh', { everyMs, log: logger }, () => this.refresh());
  }

  pinOf(clientId: string): ApiVersion | undefined | Promise<ApiVersion | undefined> {
    if (this.loaded) return this.older.get(clientId);
    return this.ready.then(() => this.older.get(clientId));
  }

  /** Reads the pins of the apps not on the latest version; a failed read keeps the last one (and throws). */
  async refresh(): Promise<void> {
    const rows = await this.db
      .selectFrom('apps')
      .select(['clientId', 'apiVersion'])
      .where('apiVersion', '<>', LATEST_API_VERSION)
      .execute();
    this.older = new Map(rows.flatMap((r) => (isApiVersion(r.apiVersion) ? [[r.clientId, r.apiVersion]] : [])));
    this.loaded = true;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
