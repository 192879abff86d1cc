import { sql } from 'kysely';
import { announceRevocation } from '../../cache/changes';
import type { Db } from '../../db/database';
import { type Loop, type LoopLog, startLoop } from '../../lib/loop';
import { ACCESS_TOKEN_TTL_S, DASHBOARD_TOKEN_TTL_S } from './tokens';

export type RevocationKind = 'token' | 'grant' | 'installation' | 'membership';

/**
 * Records a revocation in the feed every server process follows (D13). Call it inside the
 * transaction of the change that causes it: a rolled-back uninstall revokes nothing. The
 * other processes hear of it once it has committed (../changes.ts) and re-read the feed at once;
 * the process that answers the request re-reads it before answering (`RevocationFeed.refresh`).
 * `expiresAt`: when the entry no longer matters (no token it covers can still be valid).
 */
export async function recordRevocation(db: Db, kind: RevocationKind, subject: string, expiresAt: Date): Promise<void> {
  await db.insertInto('revocations').values({ kind, subject, expiresAt }).execute();
  await announceRevocation(db);
}

/**
 * A family's revocation must outlive every access token of it (OAuth or dashboard); its
 * refresh tokens are refused from the database (grant `revokedAt`), not from the feed.
 */
const FAMILY_REVOCATION_TTL_S = Math.max(ACCESS_TOKEN_TTL_S, DASHBOARD_TOKEN_TTL_S) + 60;

/**
 * Revokes a token family (D12, D13), inside the caller's transaction: the grant, its refresh
 * tokens, and through the feed every access token carrying its id. A family revoked before
 * is left as it is: its feed entry exists already.
 */
export async function revokeFamily(db: Db, grantId: string, reason: string): Promise<void> {
  const now = new Date();
  const revoked = await db
    .updateTable('grants')
    .set({ revokedAt: now, revokedReason: reason })
    .where('id', '=', grantId)
    .where('revokedAt', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (!revoked) return;
  await db
    .updateTable('refreshTokens')
    .set({ retiredAt: now })
    .where('grantId', '=', grantId)
    .where('retiredAt', 'is', null)
    .execute();
  await recordRevocation(db, 'grant', grantId, new Date(now.getTime() + FAMILY_REVOCATION_TTL_S * 1000));
}

/**
 * Revokes every dashboard session of a user but `keepGrantId` (D49, a password change), inside
 * the caller's transaction: the grants, their refresh tokens, and through the feed their
 * dashboard and staff tokens. One statement whatever the number of sessions.
 */
export async function revokeOtherSessions(db: Db, userId: string, keepGrantId: string, reason: string): Promise<void> {
  const { rows } = await sql<{ n: number }>`
    with revoked as (
      update grants set revoked_at = now(), revoked_reason = ${reason}
      where kind = 'dashboard' and user_id = ${userId} and id <> ${keepGrantId} and revoked_at is null
      returning id
    ), retired as (
      update refresh_tokens set retired_at = now()
      where grant_id in (select id from revoked) and retired_at is null
    ), fed as (
      insert into revocations (kind, subject, expires_at)
      select 'grant', id, now() + make_interval(secs => ${FAMILY_REVOCATION_TTL_S}) from revoked
      returning 1
    )
    select count(*)::int as n from fed
  `.execute(db);
  if (rows[0]!.n > 0) await announceRevocation(db);
}

/**
 * This process's copy of the revocation feed. Access tokens verify by signature alone; the
 * only question left is "was it revoked?", answered from memory. The copy is re-read when a
 * revocation is announced (../../cache/changes.ts), by the recording process before it answers, and
 * every `intervalMs` as the fallback (one query per interval per process, never one per
 * request), so a revocation takes effect everywhere within about a second even while the
 * change channel is down.
 */
export class RevocationFeed {
  /** Database time of the last read; the next read starts OVERLAP_MS before it. */
  private since = new Date(0);
  private lastSync = 0;
  private readonly revoked = new Map<string, number>();
  private readonly loop: Loop;
  private syncing: Promise<void> | undefined;
  readonly ready: Promise<void>;

  /**
   * Rows are read by creation time with an overlap rather than by id: a transaction that
   * took an id earlier can commit later, and an id cursor would skip it for good.
   */
  static readonly OVERLAP_MS = 30_000;

  constructor(
    private readonly db: Db,
    intervalMs = 250,
    log?: LoopLog,
  ) {
    this.ready = this.sync();
    this.ready.catch(() => {});
    this.loop = startLoop('revocation feed', { everyMs: intervalMs, log }, () => this.sync());
  }

  /** Reads the entries added since the last read (one at a time). */
  sync(): Promise<void> {
    this.syncing ??= this.read().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  /**
   * A read that starts after this call, so it sees every revocation committed before it
   * (a read already under way may have started before that commit).
   */
  async refresh(): Promise<void> {
    if (this.syncing) await this.syncing.catch(() => {});
    await this.sync();
  }

  private async read(): Promise<void> {
    const from = new Date(this.since.getTime() - RevocationFeed.OVERLAP_MS);
    const { rows } = await sql<{ polledAt: Date; kind: string | null; subject: string | null; expiresAt: Date | null }>`
      select t.polled_at, r.kind, r.subject, r.expires_at
      from (select now() as polled_at) t
      left join revocations r on r.created_at >= ${from} and r.expires_at > t.polled_at
    `.execute(this.db);
    for (const row of rows) {
      if (row.kind && row.subject && row.expiresAt)
        this.revoked.set(`${row.kind}:${row.subject}`, row.expiresAt.getTime());
    }
    if (rows[0]) this.since = rows[0].polledAt;
    const now = Date.now();
    for (const [key, expires] of this.revoked) if (expires <= now) this.revoked.delete(key);
    this.lastSync = now;
  }

  isRevoked(subjects: { token?: string; grant?: string | null; installation?: string; membership?: string }): boolean {
    return (
      (subjects.token !== undefined && this.revoked.has(`token:${subjects.token}`)) ||
      (subjects.grant != null && this.revoked.has(`grant:${subjects.grant}`)) ||
      (subjects.installation !== undefined && this.revoked.has(`installation:${subjects.installation}`)) ||
      (subjects.membership !== undefined && this.revoked.has(`membership:${subjects.membership}`))
    );
  }

  /** False when the copy could be stale beyond the promise of D13 (database unreachable). */
  isFresh(maxAgeMs = 3_000): boolean {
    return Date.now() - this.lastSync <= maxAgeMs;
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
