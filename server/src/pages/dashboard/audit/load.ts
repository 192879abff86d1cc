import type { TAuditAction, TAuditEventConnection, TAuditEventsQuery } from '@protection-service/sdk';
import { unwrap } from '@protection-service/sdk';
import type { Request } from 'express';
import type { Dashboard, StorePage } from '../handlers';
import { storePath } from '../paths';
import { AUDIT_ACTIONS } from '../words';

/** What the audit page shows (D53), read from its query string; anything unknown is left out. */
export interface AuditView {
  actor: string;
  action?: TAuditAction;
  from?: string;
  to?: string;
  after?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const one = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

export function auditView(req: Request): AuditView {
  const action = one(req.query.action) as TAuditAction;
  const [from, to, after] = [one(req.query.from), one(req.query.to), one(req.query.after)];
  return {
    actor: one(req.query.actor).slice(0, 320),
    action: AUDIT_ACTIONS.includes(action) ? action : undefined,
    from: DAY.test(from) ? from : undefined,
    to: DAY.test(to) ? to : undefined,
    after: after && after.length <= 512 ? after : undefined,
  };
}

function auditQuery(view: AuditView): TAuditEventsQuery {
  return {
    first: 50,
    ...(view.actor ? { actor: view.actor } : {}),
    ...(view.action ? { action: view.action } : {}),
    ...(view.from ? { createdAtMin: `${view.from}T00:00:00.000Z` } : {}),
    ...(view.to ? { createdAtMax: `${view.to}T23:59:59.999Z` } : {}),
    ...(view.after ? { after: view.after } : {}),
  };
}

export function auditHref(storeId: string, view: AuditView, after?: string): string {
  const values = { actor: view.actor || undefined, action: view.action, from: view.from, to: view.to, after };
  const query = new URLSearchParams(Object.entries(values).filter((e): e is [string, string] => !!e[1]));
  const text = query.toString();
  return `${storePath(storeId, 'audit')}${text ? `?${text}` : ''}`;
}

/** One page of the store's audit log, read with the person's own dashboard token (D53). */
export async function loadAudit(
  dashboard: Dashboard,
  { req, session, store }: Pick<StorePage, 'req' | 'session' | 'store'>,
  view: AuditView,
): Promise<TAuditEventConnection> {
  const { data } = unwrap(
    await dashboard.staff
      .asUser(req, session)
      .stores.listAuditEvents({ params: { storeId: store.id }, query: auditQuery(view) }),
  );
  return data;
}
