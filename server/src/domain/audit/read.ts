import type { TAuditEvent, TAuditEventConnection, TAuditEventsQuery } from '@protection-service/contract';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database';
import { type KeysetPager, keyset } from '../../lib/pager';
import { refuseUnlessManager } from '../identity/installations';

const EVENTS = keyset('a.at', 'a.id');

interface Row {
  id: string;
  keysetAt: string;
  at: Date;
  actorType: 'user' | 'app';
  actorId: string;
  actorEmail: string | null;
  action: TAuditEvent['action'];
  targetType: string;
  targetId: string;
  changes: unknown;
  ip: string | null;
  userAgent: string | null;
}

/**
 * `GET /v1/stores/:storeId/audit-events` (D53): the store's audit log, newest first, by keyset
 * (D24) over (`at`, `id`) at any depth. Owners and admins only (others 403, a non-member 404,
 * D7). `actor` matches the actor's id or, for a user, their e-mail.
 */
export async function listAuditEvents(
  db: Db,
  pager: KeysetPager,
  userId: string,
  storeId: string,
  query: TAuditEventsQuery,
): Promise<TAuditEventConnection> {
  await refuseUnlessManager(db, userId, storeId);
  const where: RawBuilder<unknown>[] = [sql`a.store_id = ${storeId}`];
  if (query.actor) where.push(sql`(a.actor_id = ${query.actor} or a.actor_email = ${query.actor.toLowerCase()})`);
  if (query.action) where.push(sql`a.action = ${query.action}`);
  if (query.createdAtMin) where.push(sql`a.at >= ${query.createdAtMin}::timestamptz`);
  if (query.createdAtMax) where.push(sql`a.at <= ${query.createdAtMax}::timestamptz`);
  const binding = JSON.stringify([
    'audit-events',
    storeId,
    query.actor ?? null,
    query.action ?? null,
    query.createdAtMin ?? null,
    query.createdAtMax ?? null,
  ]);
  return pager.page(query, binding, {
    descending: true,
    rows: async (range) =>
      (
        await sql<Row>`
          select a.id, ${EVENTS.position} as keyset_at, a.at, a.actor_type, a.actor_id, a.actor_email, a.action,
            a.target_type, a.target_id, a.changes, a.ip, a.user_agent
          from audit_events a
          where ${sql.join([...where, ...EVENTS.bounds(range)], sql` and `)}
          ${EVENTS.order(range)}
        `.execute(db)
      ).rows,
    position: (row) => ({ createdAt: row.keysetAt, id: row.id }),
    nodes: (rows) => rows.map(eventView),
  });
}

function eventView(row: Row): TAuditEvent {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: { type: row.actorType, id: row.actorId, email: row.actorEmail },
    action: row.action,
    target: { type: row.targetType, id: row.targetId },
    changes: row.changes ?? null,
    ip: row.ip,
    userAgent: row.userAgent,
  };
}
