// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TClaimConnection, TClaimListNode, TClaimListQuery, TClaimType } from '@protection-service/sdk';
import { unwrap } from '@protection-service/sdk';
import type { Request } from 'express';
import { Hidden, sendPage } from '../html';
import { BULK_ACTIONS, BulkResults } from './bulk';
import { type Column, DataTable } from './data-table';
import { newFormKey } from './forms';
import { DashboardLayout, Notice } from './frame';
import type { StorePage } from './handlers';
import { claimPath, storePath } from './paths';
import {
  CLAIM_TABS,
  DENY_REASON_WORDS,
  Email,
  MOVE_TARGETS,
  STATE_WORDS,
  StateLabel,
  shortDate,
  TYPE_WORDS,
} from './words';

/** What the queue shows (D50), read from its query string; anything unknown is left out. */
export interface QueueView {
  tab: (typeof CLAIM_TABS)[number];
  q: string;
  type?: TClaimType;
  from?: string;
  to?: string;
  order: 'asc' | 'desc';
  after?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const CLAIM_TYPES = Object.keys(TYPE_WORDS) as TClaimType[];

function one(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

export function queueView(req: Request): QueueView {
  const tab = CLAIM_TABS.find((t) => t.key === one(req.query.tab)) ?? CLAIM_TABS[0]!;
  const type = one(req.query.type) as TClaimType;
  const from = one(req.query.from);
  const to = one(req.query.to);
  const after = one(req.query.after);
  return {
    tab,
    q: one(req.query.q).slice(0, 320),
    type: CLAIM_TYPES.includes(type) ? type : undefined,
    from: DAY.test(from) ? from : undefined,
    to: DAY.test(to) ? to : undefined,
    order: one(req.query.order) === 'desc' ? 'desc' : 'asc',
    after: after && after.length <= 512 ? after : undefined,
  };
}

/** The list call of a view (D51): one keyset page of 50, whatever the depth. */
export function listQuery(view: QueueView): TClaimListQuery {
  return {
    first: 50,
    order: view.order,
    ...(view.tab.queue ? { queue: view.tab.queue } : {}),
    ...(view.q ? { q: view.q } : {}),
    ...(view.type ? { claimType: view.type } : {}),
    ...(view.from ? { createdAtMin: `${view.from}T00:00:00.000Z` } : {}),
    ...(view.to ? { createdAtMax: `${view.to}T23:59:59.999Z` } : {}),
    ...(view.after ? { after: view.after } : {}),
  };
}

/** The queue's address for a view, with changes (a tab, the next page). */
export function queueHref(
  storeId: string,
  view: QueueView,
  change: Partial<Record<keyof QueueView, string | undefined>> = {},
): string {
  const values: Record<string, string | undefined> = {
    tab: view.tab.key,
    q: view.q || undefined,
    type: view.type,
    from: view.from,
    to: view.to,
    order: view.order === 'desc' ? 'desc' : undefined,
    after: view.after,
    ...change,
  };
  const query = new URLSearchParams(Object.entries(values).filter((e): e is [string, string] => !!e[1]));
  return `${storePath(storeId, 'claims')}?${query}`;
}

/** The export of a view (D52): its tab, search, type, dates and order, every page of it. */
function exportHref(storeId: string, view: QueueView): string {
  return queueHref(storeId, view, { after: undefined }).replace(
    `${storePath(storeId, 'claims')}?`,
    `${storePath(storeId, 'claims', 'export')}?`,
  );
}

/** `GET …/claims`: the claim queue (D50). */
export async function queuePage({ req, res, session, store, api }: StorePage): Promise<void> {
  const view = queueView(req);
  const page = unwrap(await api.client.claims.list({ query: listQuery(view) }));
  const canAct = api.can('claim:manage');
  const canMessage = api.can('claim:update', 'claim:manage');
  sendPage(
    res,
    200,
    <DashboardLayout title="Claims" session={session} store={store} section="claims">
      <h1>Claims</h1>
      <Notice code={req.query.notice} />
      <BulkResults query={req.query} />
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
      <ClaimTable
        storeId={store.id}
        view={view}
        page={page}
        bulk={
          canAct || canMessage ? { csrf: session.csrf, move: canAct, decline: canAct, message: canMessage } : undefined
        }
      />
    </DashboardLayout>,
  );
}

function Filters(props: { storeId: string; view: QueueView }) {
  const { view } = props;
  return (
    <form method="get" action={storePath(props.storeId, 'claims')} class="filters" aria-label="Find claims">
      <Hidden values={{ tab: view.tab.key }} />
      <div>
        <label for="q">Search</label>
        <input id="q" name="q" type="search" value={view.q} aria-describedby="q-hint" />
        <span id="q-hint" class="muted">
          Order number, shopper e-mail or claim id
        </span>
      </div>
      <div>
        <label for="type">Claim type</label>
        <select id="type" name="type">
          <option value="">Any</option>
          {CLAIM_TYPES.map((t) => (
            <option value={t} selected={t === view.type}>
              {TYPE_WORDS[t]}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="from">Filed from</label>
        <input id="from" name="from" type="date" value={view.from ?? ''} />
      </div>
      <div>
        <label for="to">Filed to</label>
        <input id="to" name="to" type="date" value={view.to ?? ''} />
      </div>
      <div>
        <label for="order">Sort</label>
        <select id="order" name="order">
          <option value="asc" selected={view.order === 'asc'}>
            Oldest first
          </option>
          <option value="desc" selected={view.order === 'desc'}>
            Newest first
          </option>
        </select>
      </div>
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

function ClaimTable(props: { storeId: string; view: QueueView; page: TClaimConnection; bulk?: BulkRights }) {
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
          <div>
            <label for="bulk-state">New state</label>
            <select id="bulk-state" name="claimState">
              {MOVE_TARGETS.map((s) => (
                <option value={s}>{STATE_WORDS[s]}</option>
              ))}
            </select>
            <button type="submit" name="action" value={BULK_ACTIONS.move.value}>
              {BULK_ACTIONS.move.label}
            </button>
          </div>
        ) : null}
        {rights.decline ? (
          <div>
            <label for="bulk-reason">Reason</label>
            <select id="bulk-reason" name="reason">
              {Object.entries(DENY_REASON_WORDS).map(([code, words]) => (
                <option value={code}>{words}</option>
              ))}
            </select>
            <button type="submit" name="action" value={BULK_ACTIONS.decline.value}>
              {BULK_ACTIONS.decline.label}
            </button>
          </div>
        ) : null}
        {rights.message ? (
          <div>
            <label for="bulk-message">Message to the shoppers</label>
            <textarea id="bulk-message" name="message" rows={2} maxLength={5000} />
            <button type="submit" name="action" value={BULK_ACTIONS.message.value}>
              {BULK_ACTIONS.message.label}
            </button>
          </div>
        ) : null}
      </div>
    </fieldset>
  );
}
