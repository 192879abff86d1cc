// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import {
  type TAuditAction,
  type TAuditEvent,
  type TAuditEventConnection,
  type TAuditEventsQuery,
  unwrap,
} from '@protection-service/sdk';
import { type Request, Router } from 'express';
import { sendPage } from '../html';
import { type Column, DataTable } from './data-table';
import { DashboardLayout } from './frame';
import type { Dashboard } from './handlers';
import { DASHBOARD_PATH, storePath } from './paths';
import { Email, shortDate } from './words';

export const AUDIT_PATH = `${DASHBOARD_PATH}/stores/:storeId/audit`;

/** The actions in words, for the filter and the table (D53). */
const ACTION_WORDS: Record<TAuditAction, string> = {
  'claim.approved': 'Claim approved',
  'claim.denied': 'Claim declined',
  'claim.moved': 'Claim moved',
  'claim.note_added': 'Note added',
  'claims.exported': 'Claims exported',
  'settings.updated': 'Settings changed',
  'pricing.updated': 'Pricing changed',
  'member.invited': 'Member invited',
  'member.role_changed': 'Role changed',
  'member.removed': 'Member removed',
  'app.installed': 'App installed',
  'app.uninstalled': 'App uninstalled',
  'user.signed_in': 'Signed in',
  'user.password_changed': 'Password changed',
  'tracking_source.created': 'Tracking source added',
  'tracking_source.removed': 'Tracking source removed',
  'tracking_settings.updated': 'Tracking rules changed',
};

const AUDIT_ACTIONS = Object.keys(ACTION_WORDS) as TAuditAction[];

interface AuditView {
  actor: string;
  action?: TAuditAction;
  from?: string;
  to?: string;
  after?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const one = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

function auditView(req: Request): AuditView {
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

function auditHref(storeId: string, view: AuditView, after?: string): string {
  const values = { actor: view.actor || undefined, action: view.action, from: view.from, to: view.to, after };
  const query = new URLSearchParams(Object.entries(values).filter((e): e is [string, string] => !!e[1]));
  const text = query.toString();
  return `${storePath(storeId, 'audit')}${text ? `?${text}` : ''}`;
}

/**
 * The store's audit log (D53): who did what, newest first, 50 a page, with filters. Read with
 * the person's dashboard token, as the route takes it; the route checks the role, and an
 * agent or viewer is told their role does not allow it (the nav does not offer it to them).
 */
export function auditPages(dashboard: Dashboard): Router {
  const router = Router();
  router.get(
    AUDIT_PATH,
    dashboard.page(async ({ req, res, session, store }) => {
      const view = auditView(req);
      const { data } = unwrap(
        await dashboard.staff
          .asUser(req, session)
          .stores.listAuditEvents({ params: { storeId: store.id }, query: auditQuery(view) }),
      );
      sendPage(
        res,
        200,
        <DashboardLayout title="Audit log" session={session} store={store} section="audit">
          <h1>Audit log</h1>
          <AuditFilters storeId={store.id} view={view} />
          <AuditBody storeId={store.id} view={view} page={data} />
        </DashboardLayout>,
      );
    }),
  );
  return router;
}

function AuditFilters(props: { storeId: string; view: AuditView }) {
  const { view } = props;
  return (
    <form method="get" action={storePath(props.storeId, 'audit')} class="filters" aria-label="Find acts">
      <div>
        <label for="actor">Who</label>
        <input id="actor" name="actor" type="search" value={view.actor} aria-describedby="actor-hint" />
        <span id="actor-hint" class="muted">
          E-mail, user id or app client id
        </span>
      </div>
      <div>
        <label for="action">What</label>
        <select id="action" name="action">
          <option value="">Anything</option>
          {AUDIT_ACTIONS.map((a) => (
            <option value={a} selected={a === view.action}>
              {ACTION_WORDS[a]}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="from">From</label>
        <input id="from" name="from" type="date" value={view.from ?? ''} />
      </div>
      <div>
        <label for="to">To</label>
        <input id="to" name="to" type="date" value={view.to ?? ''} />
      </div>
      <button type="submit">Apply</button>
    </form>
  );
}

function Actor(props: { event: TAuditEvent }) {
  const { actor } = props.event;
  if (actor.type !== 'user')
    return (
      <>
        App <span class="nowrap">{actor.id}</span>
      </>
    );
  return actor.email ? <Email address={actor.email} /> : actor.id;
}

const AUDIT_COLUMNS: Column<TAuditEvent>[] = [
  { head: 'When', top: true, cell: (e) => shortDate(e.at) },
  { head: 'Who', cell: (e) => <Actor event={e} /> },
  { head: 'What', top: true, cell: (e) => ACTION_WORDS[e.action] ?? e.action },
  {
    head: 'On',
    cell: (e) => (
      <>
        {e.target.type} <span class="muted nowrap">{e.target.id}</span>
      </>
    ),
  },
  {
    head: 'From',
    cell: (e) => (
      <>
        {e.ip ?? ''}
        {e.userAgent ? <div class="muted">{e.userAgent}</div> : null}
      </>
    ),
  },
];

function AuditRows(props: { events: TAuditEvent[] }) {
  return <DataTable label="Audit log" caption="Audit log" quietCaption columns={AUDIT_COLUMNS} rows={props.events} />;
}

function AuditBody(props: { storeId: string; view: AuditView; page: TAuditEventConnection }) {
  const { storeId, view, page } = props;
  const events = page.edges.map((e) => e.node);
  if (events.length === 0) return <p>{view.after ? 'Nothing more here.' : 'Nothing here.'}</p>;
  return (
    <>
      <AuditRows events={events} />
      <p class="actions">
        {view.after ? <a href={auditHref(storeId, view)}>First page</a> : null}
        {page.pageInfo.hasNextPage && page.pageInfo.endCursor ? (
          <a href={auditHref(storeId, view, page.pageInfo.endCursor)}>Next page</a>
        ) : null}
      </p>
    </>
  );
}
