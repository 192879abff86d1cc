// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TClaim, TFulfillment, TIssueType, TOrder, TResolutionType } from '@protection-service/sdk';
import { Hidden } from '../../html';
import type { TrackingView } from '../claims/load';
import { PackageSummaries } from '../claims/tracking-views';
import { type Column, DataTable } from '../data-table';
import { Field, SelectField } from '../fields';
import { newFormKey } from '../forms';
import { DashboardLayout, Notice } from '../frame';
import { claimPath, orderPath, storePath } from '../paths';
import type { MemberStore } from '../port';
import type { SignedIn } from '../staff-api';
import { Email, RESOLUTION_WORDS, StateLabel, shortDate, TYPE_WORDS } from '../words';
import type { OrderList, OrderView } from './load';

/** The issue types a shopper may report, in the order the form offers them (D23). */
const ISSUE_TYPES = Object.keys(TYPE_WORDS).filter((t) => t !== 'MULTIPLE') as TIssueType[];
const RESOLUTIONS = Object.keys(RESOLUTION_WORDS) as TResolutionType[];

/** The orders list: the search, a page of orders, and "Next page". */
export function OrdersPage(props: { session: SignedIn; store: MemberStore; list: OrderList }) {
  const { session, store, list } = props;
  return (
    <DashboardLayout title="Orders" session={session} store={store} section="orders">
      <h1>Orders</h1>
      <form method="get" action={storePath(store.id, 'orders')} class="filters">
        <Field
          id="q"
          label="Search"
          hint="An order number or the shopper's e-mail, exactly"
          control={(d) => <input {...d} type="search" name="q" value={list.q} maxLength={255} autocomplete="off" />}
        />
        <div>
          <button type="submit">Search</button>
        </div>
      </form>
      <OrderTable storeId={store.id} orders={list.orders} searched={list.q !== ''} />
      {list.nextQuery ? (
        <p>
          <a href={`${storePath(store.id, 'orders')}?${list.nextQuery}`}>Next page</a>
        </p>
      ) : null}
    </DashboardLayout>
  );
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

/** An order: its facts, the offer it recorded, its items, fulfillments and claims, and "File a claim". */
export function OrderPage(props: { session: SignedIn; store: MemberStore; view: OrderView; notice: unknown }) {
  const { store, view } = props;
  const { order } = view;
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
      <Fulfillments fulfillments={view.fulfillments} tracking={view.tracking} />
      {view.claims ? (
        <>
          <h2>Claims</h2>
          <Claims storeId={store.id} claims={view.claims} />
        </>
      ) : null}
      {view.canFile ? <FileClaim session={props.session} storeId={store.id} order={order} /> : null}
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
