// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TClaimConnection, TClaimListNode } from '@protection-service/sdk';
import { Hidden } from '../../html';
import { BULK_ACTIONS } from '../bulk';
import { type Column, DataTable } from '../data-table';
import { newFormKey } from '../forms';
import { claimPath, storePath } from '../paths';
import {
  DENY_REASON_WORDS,
  Email,
  MOVE_TARGETS,
  RiskBadge,
  STATE_WORDS,
  StateLabel,
  shortDate,
  TYPE_WORDS,
} from '../words';
import { CLAIM_TYPES, type QueueView, queueHref, type RiskChoice } from './load';

const RISK_CHOICE_ORDER: RiskChoice[] = ['high', 'elevated', 'medium', 'low'];
const RISK_CHOICE_WORDS: Record<RiskChoice, string> = {
  high: 'High',
  elevated: 'Medium or high',
  medium: 'Medium',
  low: 'Low',
};

export function Filters(props: { storeId: string; view: QueueView }) {
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
        <label for="risk">Risk</label>
        <select id="risk" name="risk">
          <option value="">Any</option>
          {RISK_CHOICE_ORDER.map((choice) => (
            <option value={choice} selected={choice === view.risk}>
              {RISK_CHOICE_WORDS[choice]}
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
