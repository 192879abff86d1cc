// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TClaimConnection, TClaimListNode } from '@protection-service/sdk';
import { Hidden } from '../../html';
import { type Column, DataTable } from '../data-table';
import { Field, SelectField } from '../fields';
import { newFormKey } from '../forms';
import { DashboardLayout, Notice } from '../frame';
import { claimPath, storePath } from '../paths';
import type { MemberStore } from '../port';
import type { SignedIn } from '../staff-api';
import {
  CLAIM_TABS,
  DENY_REASON_WORDS,
  Email,
  MOVE_TARGETS,
  RiskBadge,
  STATE_WORDS,
  StateLabel,
  shortDate,
  TYPE_WORDS,
} from '../words';
import { BULK_ACTIONS, BulkResults } from './bulk';
import { CLAIM_TYPES, exportHref, type QueueView, queueHref, type RiskChoice } from './load';

const RISK_CHOICE_ORDER: RiskChoice[] = ['high', 'elevated', 'medium', 'low'];
const RISK_CHOICE_WORDS: Record<RiskChoice, string> = {
  high: 'High',
  elevated: 'Medium or high',
  medium: 'Medium',
  low: 'Low',
};

/** The claim queue (D50): its tabs, filters, export link and one page of claims with the bulk actions the member may take. */
export function QueuePage(props: {
  session: SignedIn;
  store: MemberStore;
  query: Record<string, unknown>;
  view: QueueView;
  page: TClaimConnection;
  bulk?: BulkRights;
}) {
  const { session, store, query, view, page, bulk } = props;
  return (
    <DashboardLayout title="Claims" session={session} store={store} section="claims">
      <h1>Claims</h1>
      <Notice code={query.notice} />
      <BulkResults query={query} />
      <nav class="tabs" aria-label="Claim tabs">
        <ul>
          {CLAIM_TABS.map((t) => (
            <li>
              <a
                href={queueHref(store.id, view, { tab: t.key, after: undefined })}
                aria-current={t.key === view.tab.key ? 'page' : undefined}
              >
                {t.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <Filters storeId={store.id} view={view} />
      <p class="actions">
        <a href={exportHref(store.id, view)} download>
          Export
        </a>{' '}
        <span class="muted">these claims as CSV (every page, at most 100,000)</span>
      </p>
      <ClaimTable storeId={store.id} view={view} page={page} bulk={bulk} />
    </DashboardLayout>
  );
}

export function Filters(props: { storeId: string; view: QueueView }) {
  const { view } = props;
  return (
    <form method="get" action={storePath(props.storeId, 'claims')} class="filters" aria-label="Find claims">
      <Hidden values={{ tab: view.tab.key }} />
      <Field
        id="q"
        label="Search"
        hint="Order number, shopper e-mail or claim id"
        control={(d) => <input {...d} name="q" type="search" value={view.q} />}
      />
      <SelectField
        id="type"
        label="Claim type"
        options={[['', 'Any'], ...CLAIM_TYPES.map((t) => [t, TYPE_WORDS[t]] as const)]}
        selected={view.type ?? ''}
      />
      <SelectField
        id="risk"
        label="Risk"
        options={[['', 'Any'], ...RISK_CHOICE_ORDER.map((c) => [c, RISK_CHOICE_WORDS[c]] as const)]}
        selected={view.risk ?? ''}
      />
      <Field
        id="from"
        label="Filed from"
        control={(d) => <input {...d} name="from" type="date" value={view.from ?? ''} />}
      />
      <Field id="to" label="Filed to" control={(d) => <input {...d} name="to" type="date" value={view.to ?? ''} />} />
      <SelectField
        id="order"
        label="Sort"
        options={[
          ['asc', 'Oldest first'],
          ['desc', 'Newest first'],
        ]}
        selected={view.order}
      />
      <button type="submit">Apply</button>
    </form>
  );
}

interface BulkRights {
  csrf: string;
  move: boolean;
  decline: boolean;
  message: boolean;
}

export function ClaimTable(props: { storeId: string; view: QueueView; page: TClaimConnection; bulk?: BulkRights }) {
  const { storeId, view, page, bulk } = props;
  const claims = page.edges.map((e) => e.node);
  if (claims.length === 0) {
    return <p>{view.after ? 'No more claims here.' : 'No claims here.'}</p>;
  }
  const caption = `${view.tab.label}: ${claims.length} claims on this page, ${view.order === 'asc' ? 'oldest' : 'newest'} first`;
  const table = <ClaimRows storeId={storeId} caption={caption} claims={claims} selectable={!!bulk} />;
  const paging = (
    <p class="actions">
      {view.after ? <a href={queueHref(storeId, view, { after: undefined })}>First page</a> : null}
      {page.pageInfo.hasNextPage && page.pageInfo.endCursor ? (
        <a href={queueHref(storeId, view, { after: page.pageInfo.endCursor })}>Next page</a>
      ) : null}
    </p>
  );
  if (!bulk)
    return (
      <>
        {table}
        {paging}
      </>
    );
  return (
    <>
      <form method="post" action={storePath(storeId, 'claims', 'bulk')}>
        <Hidden values={{ csrf: bulk.csrf, idempotencyKey: newFormKey(), back: queueHref(storeId, view) }} />
        {table}
        <BulkControls rights={bulk} />
      </form>
      {paging}
    </>
  );
}

/** The claim queue's columns; the checkbox first when the page has bulk actions. */
function claimColumns(storeId: string, selectable: boolean): Column<TClaimListNode>[] {
  const pick: Column<TClaimListNode> = {
    head: 'Select',
    hideHead: true,
    top: true,
    cell: (c) => (
      <input type="checkbox" name="claimId" value={c.id} id={`pick-${c.id}`} aria-label={`Select claim ${c.id}`} />
    ),
  };
  return [
    ...(selectable ? [pick] : []),
    { head: 'Claim', bare: true, cell: (c) => <a href={claimPath(storeId, c.id)}>{c.id}</a> },
    { head: 'Order', top: true, cell: (c) => c.sourceOrderNumber },
    {
      head: 'Shopper',
      bare: true,
      cell: (c) => (
        <>
          {c.authorName ?? ''}
          {c.authorEmail ? (
            <span class="muted">
              {' '}
              <Email address={c.authorEmail} />
            </span>
          ) : null}
        </>
      ),
    },
    { head: 'Type', bare: true, cell: (c) => (c.claimType ? TYPE_WORDS[c.claimType] : '') },
    { head: 'State', top: true, cell: (c) => <StateLabel state={c.claimState} /> },
    // D57: the level only informs; the claim page says why.
    { head: 'Risk', top: true, cell: (c) => <RiskBadge level={c.risk.level} /> },
    { head: 'Filed', bare: true, cell: (c) => shortDate(c.createdAt) },
  ];
}

/** A page of claims as a table, each linking to its page; with a checkbox each when `selectable` (bulk actions). */
export function ClaimRows(props: { storeId: string; caption: string; claims: TClaimListNode[]; selectable?: boolean }) {
  return (
    <DataTable
      label="Claims"
      caption={props.caption}
      columns={claimColumns(props.storeId, !!props.selectable)}
      rows={props.claims}
    />
  );
}

function BulkControls(props: { rights: BulkRights }) {
  const { rights } = props;
  return (
    <fieldset class="card bulk">
      <legend>With the selected claims</legend>
      <div class="filters">
        {rights.move ? (
          <SelectField
            id="bulk-state"
            name="claimState"
            label="New state"
            options={MOVE_TARGETS.map((s) => [s, STATE_WORDS[s]] as const)}
          >
            <button type="submit" name="action" value={BULK_ACTIONS.move.value}>
              {BULK_ACTIONS.move.label}
            </button>
          </SelectField>
        ) : null}
        {rights.decline ? (
          <SelectField id="bulk-reason" name="reason" label="Reason" options={Object.entries(DENY_REASON_WORDS)}>
            <button type="submit" name="action" value={BULK_ACTIONS.decline.value}>
              {BULK_ACTIONS.decline.label}
            </button>
          </SelectField>
        ) : null}
        {rights.message ? (
          <Field
            id="bulk-message"
            label="Message to the shoppers"
            control={(d) => <textarea {...d} name="message" rows={2} maxLength={5000} />}
          >
            <button type="submit" name="action" value={BULK_ACTIONS.message.value}>
              {BULK_ACTIONS.message.label}
            </button>
          </Field>
        ) : null}
      </div>
    </fieldset>
  );
}
