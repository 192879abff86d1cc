import { AUDIT_ACTIONS, type TAuditAction } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { newId } from '../../lib/ids';
import { requestOrigin } from '../../lib/request-origin';

/** Every act the audit log records (D53), named `<thing>.<verb>`: the contract's list. */
export { AUDIT_ACTIONS };
export type AuditAction = TAuditAction;

/** Who acted: a dashboard user (their id) or an installed app (its client id). */
export interface AuditActor {
  type: 'user' | 'app';
  id: string;
}

/** The actor of a change made through a token (D49): the staff member, else the app. */
export function auditActorOf(actor: { clientId: string | null; userId: string | null }): AuditActor {
  return actor.userId ? { type: 'user', id: actor.userId } : { type: 'app', id: actor.clientId ?? 'unknown' };
}

export interface AuditLine {
  /**
   * The store the act belongs to, or `{ memberOf }`: an act of a user on their own account
   * (sign-in, password), written once for each store the user is a member of when it happens.
   */
  store: string | { memberOf: string };
  actor: AuditActor;
  action: AuditAction;
  target: { type: string; id: string };
  /** What changed, e.g. `{ before, after }`; never a secret (redacted below all the same). */
  changes?: unknown;
}

/** Keys whose values never enter the log, whatever they hold. */
const SECRET_KEY = /pass(word)?|secret|token|authorization|cookie|api.?key/i;
/** A card-like number: 12 or more digits, maybe grouped by spaces or dashes. */
const CARD_LIKE = /\d(?:[ -]?\d){11,}/g;
export const REDACTED = '[redacted]';

/** `value` with secrets dropped and card-like digit runs replaced (D53). */
export function redact(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(CARD_LIKE, REDACTED);
  if (typeof value === 'number')
    return Number.isInteger(value) && String(Math.abs(value)).length >= 12 ? REDACTED : value;
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[key] = SECRET_KEY.test(key) ? REDACTED : redact(v);
    return out;
  }
  return value;
}

/**
 * Records one act in the audit log (D53), inside the transaction `trx` of the change itself:
 * a change rolled back leaves no line. The address, browser and request id are the current
 * request's (lib/request-origin.ts); a user's e-mail is read as it is at the time of the act.
 */
export async function recordAudit(trx: Db, line: AuditLine): Promise<void> {
  const origin = requestOrigin();
  const changes = line.changes === undefined ? null : JSON.stringify(redact(line.changes));
  const email =
    line.actor.type === 'user' ? sql`(select email from dashboard_users where id = ${line.actor.id})` : sql`null`;
  const stores =
    typeof line.store === 'string'
      ? sql`select ${line.store}::text as store_id`
      : sql`select store_id from store_members where user_id = ${line.store.memberOf}`;
  await sql`
    insert into audit_events (
      id, store_id, actor_type, actor_id, actor_email, action, target_type, target_id, changes, ip, user_agent, request_id
    )
    select ${newId('aud')} || '_' || row_number() over (), s.store_id, ${line.actor.type}, ${line.actor.id}, ${email},
      ${line.action}, ${line.target.type}, ${line.target.id}, ${changes}::jsonb,
      ${origin.ip}, ${origin.userAgent}, ${origin.requestId}
    from (${stores}) s
  `.execute(trx);
}
