// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import {
  type TClaim,
  type TClaimFile,
  type TClaimIssue,
  type TFulfillment,
  type TIssueType,
  type TOrder,
  type TResolutionType,
  unwrap,
} from '@protection-service/sdk';
import express, { Router } from 'express';
import { Hidden, sendPage } from '../html';
import { PackageSummaries, readTracking, type TrackingView } from './claim-tracking';
import { type Column, DataTable } from './data-table';
import { Field, SelectField } from './fields';
import { field, formKey, newFormKey, seeOther, withNotice } from './forms';
import { DashboardLayout, Notice } from './frame';
import type { Dashboard } from './handlers';
import { claimPath, DASHBOARD_PATH, orderPath, storePath } from './paths';
import type { MemberStore } from './port';
import type { SignedIn } from './staff-api';
import { Email, RESOLUTION_WORDS, StateLabel, shortDate, TYPE_WORDS } from './words';

const PAGE_SIZE = 50;
const ORDERS = `${DASHBOARD_PATH}/stores/:storeId/orders`;
const ORDER = `${ORDERS}/:sourceOrderId`;
const FILE_CLAIM = `${ORDER}/claims`;

/** The issue types a shopper may report, in the order the form offers them (D23). */
const ISSUE_TYPES = Object.keys(TYPE_WORDS).filter((t) => t !== 'MULTIPLE') as TIssueType[];
const RESOLUTIONS = Object.keys(RESOLUTION_WORDS) as TResolutionType[];

/**
 * The orders of a store (D50, D51): a search by order number or e-mail, newest first, 50 a
 * page; an order with its lines' claimable quantities, fulfillments and claims, and "File a
 * claim" for the shopper, which files through the API like the shopper's own claim would.
 */
export function orderPages(dashboard: Dashboard): Router {
  const router = Router();
  // An order has at most 500 lines (D18), three fields each.
  const form = express.urlencoded({ extended: false, limit: '256kb', parameterLimit: 1_600 });

  router.get(ORDERS, ordersList(dashboard));

  router.get(
    ORDER,
    dashboard.page(async ({ req, res, session, store, api }) => {
      const sourceOrderId = String(req.params.sourceOrderId);
      const params = { sourceOrderId };
      const order = unwrap(await api.client.orders.get({ params }));
      const [{ fulfillments, tracking }, claims] = await Promise.all([
        // Then each fulfillment's packages (D54), their status and last scan in its row.
        api.client.orders
          .listFulfillments({ params })
          .then(unwrap)
          .then(async (fulfillments) => ({
            fulfillments,
            tracking: await readTracking(api, sourceOrderId, fulfillments),
          })),
        api.can('claim:read', 'claim:update', 'claim:manage')
          ? api.client.orders.listClaims({ params }).then(unwrap)
          : Promise.resolve(undefined),
      ]);
      sendPage(
        res,
        200,
        <OrderPage
          session={session}
          store={store}
          order={order}
          fulfillments={fulfillments}
          tracking={tracking}
          claims={claims}
          canFile={api.can('claim:update', 'claim:manage')}
          notice={req.query.notice}
        />,
      );
    }),
  );

  router.post(
    FILE_CLAIM,
    form,
    dashboard.form(
      (req) => orderPath(String(req.params.storeId), String(req.params.sourceOrderId)),
      async ({ req, res, store, api, body }) => {
        const sourceOrderId = String(req.params.sourceOrderId);
        const back = orderPath(store.id, sourceOrderId);
        const claim = claimOf(body);
        if (!claim) return seeOther(res, withNotice(back, 'noIssue'));
        const key = formKey(body);
        const filed = await api.client.claims.file({
          params: { sourceOrderId },
          body: claim,
          ...(key ? { headers: { 'idempotency-key': key } } : {}),
        });
        unwrap(filed);
        const claimId = (filed.headers.get('location') ?? '').replace('/v1/claims/', '');
        const replayed = filed.headers.get('idempotent-replayed') === 'true';
        seeOther(res, withNotice(claimId ? claimPath(store.id, claimId) : back, replayed ? 'replayed' : 'claimFiled'));
      },
    ),
  );
  return router;
}

/** The list: a search, 50 a page newest first, "Next page" by the keyset cursor (D24, D51). */
function ordersList(dashboard: Dashboard) {
  return dashboard.page(async ({ req, res, session, store, api }) => {
    const q = typeof req.query.q === 'string' ? req.query.q.trim() : '';
    const after = typeof req.query.after === 'string' && req.query.after !== '' ? req.query.after : undefined;
    const page = unwrap(
      await api.client.orders.list({ query: { first: PAGE_SIZE, ...(q ? { q } : {}), ...(after ? { after } : {}) } }),
    );
    const next = page.pageInfo.hasNextPage && page.pageInfo.endCursor ? page.pageInfo.endCursor : undefined;
    const nextQuery = next ? new URLSearchParams({ ...(q ? { q } : {}), after: next }) : undefined;
    sendPage(
      res,
      200,
      <DashboardLayout title="Orders" session={session} store={store} section="orders">
        <h1>Orders</h1>
        <form method="get" action={storePath(store.id, 'orders')} class="filters">
          <Field
            id="q"
            label="Search"
            hint="An order number or the shopper's e-mail, exactly"
            control={(d) => <input {...d} type="search" name="q" value={q} maxLength={255} autocomplete="off" />}
          />
          <div>
            <button type="submit">Search</button>
          </div>
        </form>
        <OrderTable storeId={store.id} orders={page.edges.map((e) => e.node)} searched={q !== ''} />
        {nextQuery ? (
          <p>
            <a href={`${storePath(store.id, 'orders')}?${nextQuery}`}>Next page</a>
          </p>
        ) : null}
      </DashboardLayout>,
    );
  });
}

/**
 * The claim the form describes (D23): one issue per line given an issue type, with its
 * quantity and the shared details. Undefined when no line has an issue. The API checks the
 * rest (the e-mail, quantities up to what is claimable, D39) and its refusal is the page.
 */
function claimOf(body: Record<string, unknown>): TClaimFile | undefined {
  const details = field(body, 'details');
  const issues: TClaimIssue[] = [];
  for (let i = 0; i < 500 && body[`line-${i}-item`] !== undefined; i++) {
    const issueType = field(body, `line-${i}-issue`);
    if (issueType === '') continue;
    const item = field(body, `line-${i}-item`);
    const quantity = field(body, `line-${i}-quantity`);
    issues.push({
      issueType: issueType as TIssueType,
      // Not a number reaches the API as null and is refused there, in its words (D2).
      quantity: quantity === '' ? 1 : Number(quantity),
      ...(item ? { sourceItemId: item } : {}),
      ...(details ? { details } : {}),
    });
  }
  if (issues.length === 0) return undefined;
  return {
    email: field(body, 'email'),
    salesChannel: 'ONLINE',
    claimCategory: field(body, 'claimCategory') === 'WARRANTY' ? 'WARRANTY' : 'SHIPPING',
    claimFiledFrom: 'INTERNAL',
    fulfillmentIssues: [{ issues }],
    resolution: { desiredMethod: field(body, 'desiredMethod') as TResolutionType },
  };
}

function money(amount: number | null, currency: string): string {
  return amount === null ? '' : `${amount.toFixed(2)} ${currency}`;
}

const PROTECTION_WORDS: Record<TOrder['protection']['status'], string> = {
  ACTIVE: 'Protected',
  REMOVED: 'Protection removed',
  NONE: 'Not protected',
};

/** The orders list's columns: the order number and its protection on top on a phone. */
const orderColumns = (storeId: string): Column<TOrder>[] => [
  {
    head: 'Order',
    top: true,
    cell: (o) => <a href={orderPath(storeId, o.sourceOrderId)}>{o.sourceOrderNumber}</a>,
  },
  { head: 'Shopper', bare: true, cell: (o) => o.customerName ?? '' },
  { head: 'E-mail', bare: true, cell: (o) => (o.customerEmail ? <Email address={o.customerEmail} /> : '') },
  { head: 'Total', cell: (o) => money(o.total, o.currency) },
  { head: 'Protection', top: true, cell: (o) => PROTECTION_WORDS[o.protection.status] },
  { head: 'Placed', cell: (o) => shortDate(o.sourceCreatedAt) },
];

function OrderTable(props: { storeId: string; orders: TOrder[]; searched: boolean }) {
  if (props.orders.length === 0) {
    return <p>{props.searched ? 'No order has this number or e-mail.' : 'This store has no orders yet.'}</p>;
  }
  return (
    <DataTable
      label="Orders"
      caption="Orders, newest first"
      columns={orderColumns(props.storeId)}
      rows={props.orders}
    />
  );
}

function OrderPage(props: {
  session: SignedIn;
  store: MemberStore;
  order: TOrder;
  fulfillments: TFulfillment[];
  tracking: TrackingView;
  claims: TClaim[] | undefined;
  canFile: boolean;
  notice: unknown;
}) {
  const { order, store } = props;
  const lines = order.lineItems ?? [];
  return (
    <DashboardLayout title={`Order ${order.sourceOrderNumber}`} session={props.session} store={store} section="orders">
      <p>
        <a href={storePath(store.id, 'orders')}>Orders</a>
      </p>
      <h1>Order {order.sourceOrderNumber}</h1>
      <Notice code={props.notice} />
      <dl class="facts card">
        <dt>Shopper</dt>
        <dd>{order.customerName ?? ''}</dd>
        <dt>E-mail</dt>
        <dd>{order.customerEmail ?? ''}</dd>
        <dt>Total</dt>
        <dd>{money(order.total, order.currency)}</dd>
        <dt>Protection</dt>
        <dd>{PROTECTION_WORDS[order.protection.status]}</dd>
        <dt>Placed</dt>
        <dd>{shortDate(order.sourceCreatedAt)}</dd>
      </dl>
      <OfferRecord offer={order.offer} />
      <h2>Items</h2>
      {lines.length === 0 ? (
        <p>The order names no items.</p>
      ) : (
        <DataTable label="Items" caption="The order's items" quietCaption columns={itemColumns(order)} rows={lines} />
      )}
      <h2>Fulfillments</h2>
      <Fulfillments fulfillments={props.fulfillments} tracking={props.tracking} />
      {props.claims ? (
        <>
          <h2>Claims</h2>
          <Claims storeId={store.id} claims={props.claims} />
        </>
      ) : null}
      {props.canFile ? <FileClaim session={props.session} storeId={store.id} order={order} /> : null}
    </DashboardLayout>
  );
}

/**
 * D55: what the storefront offer showed the shopper and what they chose; a record that does
 * not match the order's protection is said so in words, not only a colour.
 */
function OfferRecord(props: { offer: TOrder['offer'] }) {
  const offer = props.offer;
  if (!offer) return null;
  const cohort = offer.partnerApplicationId
    ? `Cohort ${offer.partnerVariantKey} of app ${offer.partnerApplicationId}`
    : "The store's own offer";
  return (
    <section aria-labelledby="offer-heading">
      <h2 id="offer-heading">Protection offer</h2>
      {offer.matchesPolicy ? null : (
        <p class="notice bad" role="note">
          Does not match: the shopper {offer.selected ? 'chose' : 'declined'} protection at{' '}
          {money(offer.amount, offer.currency)}, but the order{' '}
          {offer.selected ? 'is not protected at that premium' : 'is protected'}.
        </p>
      )}
      <dl class="facts card">
        <dt>Shown</dt>
        <dd>
          {money(offer.amount, offer.currency)}, {offer.preselected ? 'box shown checked' : 'box shown unchecked'}
        </dd>
        <dt>Shopper's choice</dt>
        <dd>
          {offer.selected ? 'Chose protection' : 'Declined protection'} on {shortDate(offer.decidedAt)}
        </dd>
        <dt>Offer</dt>
        <dd>{cohort}</dd>
        <dt>Matches the order</dt>
        <dd>{offer.matchesPolicy ? 'Yes' : 'No'}</dd>
      </dl>
    </section>
  );
}

type Line = NonNullable<TOrder['lineItems']>[number];

/** The order's items: the item and what may still be claimed of it on top on a phone. */
const itemColumns = (order: TOrder): Column<Line>[] => [
  { head: 'Item', top: true, cell: (l) => l.name ?? l.sourceItemId },
  { head: 'SKU', cell: (l) => l.sku ?? '' },
  { head: 'Quantity', cell: (l) => l.quantity },
  { head: 'Claimable', top: true, cell: (l) => l.claimableQuantity },
  { head: 'Price', cell: (l) => money(l.price, order.currency) },
];

/** The fulfillments: its id and status on top on a phone. */
const fulfillmentColumns = (tracked: Map<string, TrackingView['fulfillments'][number]['packages']>) =>
  [
    { head: 'Fulfillment', top: true, cell: (f) => f.sourceFulfillmentId },
    { head: 'Status', top: true, cell: (f) => (f.cancelledAt ? 'Cancelled' : f.fulfillmentStatus) },
    { head: 'Carrier', cell: (f) => f.trackingCompany ?? '' },
    {
      head: 'Tracking numbers',
      cell: (f) =>
        f.trackingNumber.map((n, i) => {
          const url = f.trackingUrl[i];
          return <span class="tracking">{url?.startsWith('https://') ? <a href={url}>{n}</a> : n} </span>;
        }),
    },
    {
      head: 'Packages',
      cell: (f) =>
        tracked.has(f.sourceFulfillmentId) ? (
          <PackageSummaries packages={tracked.get(f.sourceFulfillmentId)} />
        ) : (
          <span class="muted">Not read here</span>
        ),
    },
  ] satisfies Column<TFulfillment>[];

/** The order's claims: the claim and its state on top on a phone. */
const claimColumns = (storeId: string): Column<TClaim>[] => [
  { head: 'Claim', top: true, cell: (c) => <a href={claimPath(storeId, c.id)}>{c.id}</a> },
  { head: 'Type', cell: (c) => (c.claimType ? (TYPE_WORDS[c.claimType] ?? c.claimType) : '') },
  { head: 'State', top: true, cell: (c) => <StateLabel state={c.claimState} /> },
  { head: 'Filed', cell: (c) => shortDate(c.createdAt) },
];

function Fulfillments(props: { fulfillments: TFulfillment[]; tracking: TrackingView }) {
  const tracked = new Map(props.tracking.fulfillments.map((t) => [t.sourceFulfillmentId, t.packages]));
  if (props.fulfillments.length === 0) return <p>Nothing has been shipped yet.</p>;
  return (
    <DataTable
      label="Fulfillments"
      caption="What has been shipped"
      quietCaption
      columns={fulfillmentColumns(tracked)}
      rows={props.fulfillments}
    />
  );
}

function Claims(props: { storeId: string; claims: TClaim[] }) {
  if (props.claims.length === 0) return <p>No claim has been filed on this order.</p>;
  return (
    <DataTable
      label="Claims"
      caption="The claims filed on this order"
      quietCaption
      columns={claimColumns(props.storeId)}
      rows={props.claims}
    />
  );
}

/** "File a claim" for the shopper (D50): per line an issue type and a quantity up to what is claimable (D39). */
function FileClaim(props: { session: SignedIn; storeId: string; order: TOrder }) {
  const { order } = props;
  // An order without lines is claimed as a whole: one issue naming no item.
  const lines = order.lineItems?.length
    ? order.lineItems.map((l) => ({ id: l.sourceItemId, name: l.name ?? l.sourceItemId, max: l.claimableQuantity }))
    : [{ id: '', name: 'The order', max: undefined as number | undefined }];
  return (
    <section class="card" aria-labelledby="file-claim">
      <h2 id="file-claim">File a claim</h2>
      <p class="muted">For the shopper: choose an issue for each item concerned. Items with no issue are left out.</p>
      <form
        method="post"
        action={`${orderPath(props.storeId, order.sourceOrderId)}/claims`}
        class="stack"
        aria-describedby="file-claim"
      >
        <Hidden values={{ csrf: props.session.csrf, idempotencyKey: newFormKey() }} />
        {lines.map((line, i) => (
          <fieldset class="filters">
            <legend>{line.name}</legend>
            <input type="hidden" name={`line-${i}-item`} value={line.id} />
            {line.max === 0 ? (
              <p class="muted">Nothing left to claim on this item.</p>
            ) : (
              <>
                <SelectField
                  id={`line-${i}-issue`}
                  label="Issue"
                  options={[['', 'No issue'], ...ISSUE_TYPES.map((t) => [t, TYPE_WORDS[t]] as const)]}
                />
                <Field
                  id={`line-${i}-quantity`}
                  label="Quantity"
                  hint={line.max === undefined ? undefined : `Up to ${line.max}`}
                  control={(d) => (
                    <input {...d} type="number" name={`line-${i}-quantity`} min={1} max={line.max} value="1" />
                  )}
                />
              </>
            )}
          </fieldset>
        ))}
        <SelectField
          id="claimCategory"
          label="Kind of claim"
          options={[
            ['SHIPPING', 'Shipping'],
            ['WARRANTY', 'Warranty'],
          ]}
        />
        <Field
          id="details"
          label="Details"
          control={(d) => <textarea {...d} name="details" rows={4} maxLength={10_000} />}
        />
        <SelectField
          id="desiredMethod"
          label="Desired resolution"
          options={RESOLUTIONS.map((r) => [r, RESOLUTION_WORDS[r]] as const)}
        />
        <Field
          id="email"
          label="Shopper's e-mail"
          control={(d) => <input {...d} type="email" name="email" required value={order.customerEmail ?? ''} />}
        />
        <div class="actions">
          <button type="submit" class="primary">
            File a claim
          </button>
        </div>
      </form>
    </section>
  );
}
