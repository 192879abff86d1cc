// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TAuditEvent, TAuditEventConnection } from '@protection-service/sdk';
import { type Column, DataTable } from '../data-table';
import { Field, SelectField } from '../fields';
import { storePath } from '../paths';
import { ACTION_WORDS, AUDIT_ACTIONS, Email, shortDate } from '../words';
import { type AuditView, auditHref } from './load';

export function AuditFilters(props: { storeId: string; view: AuditView }) {
  const { view } = props;
  return (
    <form method="get" action={storePath(props.storeId, 'audit')} class="filters" aria-label="Find acts">
      <Field
        id="actor"
        label="Who"
        hint="E-mail, user id or app client id"
        control={(d) => <input {...d} name="actor" type="search" value={view.actor} />}
      />
      <SelectField
        id="action"
        label="What"
        options={[['', 'Anything'], ...AUDIT_ACTIONS.map((a) => [a, ACTION_WORDS[a]] as const)]}
        selected={view.action ?? ''}
      />
      <Field id="from" label="From" control={(d) => <input {...d} name="from" type="date" value={view.from ?? ''} />} />
      <Field id="to" label="To" control={(d) => <input {...d} name="to" type="date" value={view.to ?? ''} />} />
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

export function AuditBody(props: { storeId: string; view: AuditView; page: TAuditEventConnection }) {
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
