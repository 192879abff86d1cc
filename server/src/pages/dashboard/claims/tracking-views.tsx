// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TTrackingDecision, TTrackingPackage } from '@protection-service/sdk';
import { type Column, DataTable } from '../data-table';
import { claimPath } from '../paths';
import {
  shortDate,
  subStatusWords,
  TRACKING_ACTION_WORDS,
  TRACKING_RULE_WORDS,
  TRACKING_STATUS_WORDS,
  TrackingLabel,
} from '../words';
import type { TrackingView } from './load';

/** The claim page's tracking (D54): each package of the fulfillments the claim is about. */
export function Tracking(props: { tracking: TrackingView | undefined; storeId: string; claimId: string }) {
  const { tracking } = props;
  if (!tracking || tracking.fulfillments.length === 0) return null;
  return (
    <>
      {tracking.fulfillments.map((f, i) => (
        <section class="shipment" aria-labelledby={`tracking-${i}`}>
          <h3 id={`tracking-${i}`}>Tracking of fulfillment {f.sourceFulfillmentId}</h3>
          {f.packages === undefined ? (
            <p>Tracking is not available.</p>
          ) : f.packages.length === 0 ? (
            <p class="muted">No package of this fulfillment is tracked.</p>
          ) : (
            f.packages.map((pkg, j) => (
              <Package pkg={pkg} id={`tracking-${i}-${j}`} storeId={props.storeId} claimId={props.claimId} />
            ))
          )}
        </section>
      ))}
      {tracking.omitted > 0 ? (
        <p class="muted">
          The tracking of {tracking.omitted} more fulfillment{tracking.omitted === 1 ? '' : 's'} is not shown here.
        </p>
      ) : null}
    </>
  );
}

/** One package: its state, its events and the rules' decisions (D54). */
function Package(props: { pkg: TTrackingPackage; id: string; storeId: string; claimId: string }) {
  const { pkg } = props;
  return (
    <section class="package" aria-labelledby={props.id}>
      <h4 id={props.id}>Package {pkg.trackingNumber}</h4>
      <PackageFacts pkg={pkg} />
      <Events pkg={pkg} />
      <Decisions pkg={pkg} storeId={props.storeId} claimId={props.claimId} />
    </section>
  );
}

/** Status in words with its sub-status, carrier, last scan, estimated and actual delivery. */
export function PackageFacts(props: { pkg: TTrackingPackage }) {
  const { pkg } = props;
  const sub = subStatusWords(pkg.subStatus);
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <TrackingLabel status={pkg.status} />
        {pkg.statusAt ? ` since ${shortDate(pkg.statusAt)}` : ''}
      </dd>
      <dt>Detail</dt>
      <dd>{sub || 'None'}</dd>
      <dt>Carrier</dt>
      <dd>{pkg.carrier ?? 'Not known'}</dd>
      <dt>Last carrier scan</dt>
      <dd>{pkg.lastScanAt ? shortDate(pkg.lastScanAt) : 'None yet'}</dd>
      <dt>Estimated delivery</dt>
      <dd>{pkg.estimatedDeliveryAt ? shortDate(pkg.estimatedDeliveryAt) : 'Not given'}</dd>
      <dt>Delivered</dt>
      <dd>{pkg.deliveredAt ? shortDate(pkg.deliveredAt) : 'Not yet'}</dd>
    </dl>
  );
}

/** A status and its sub-status in words: "In transit (Delayed)", "Lost" rather than "Lost (Lost)". */
function statusWords(status: TTrackingPackage['status'], subStatus: string | null): string {
  const words = TRACKING_STATUS_WORDS[status] ?? status;
  const sub = subStatusWords(subStatus);
  return sub && sub !== words ? `${words} (${sub})` : words;
}

type TrackingEvent = TTrackingPackage['events'][number];

/** A package's events: when and what on top on a phone. */
const EVENT_COLUMNS: Column<TrackingEvent>[] = [
  { head: 'Time', top: true, cell: (e) => shortDate(e.occurredAt) },
  {
    head: 'Status',
    top: true,
    cell: (e) => <span title={e.rawStatus ?? e.status}>{statusWords(e.status, e.subStatus)}</span>,
  },
  { head: 'Description', class: 'text', cell: (e) => e.description ?? '' },
  { head: 'Location', cell: (e) => e.location ?? '' },
];

/** A package's decisions: when and what was done on top on a phone. */
const decisionColumns = (storeId: string, claimId: string): Column<TTrackingDecision>[] => [
  { head: 'Evaluated', top: true, cell: (d) => shortDate(d.at) },
  { head: 'As of', cell: (d) => shortDate(d.asOf) },
  { head: 'Rule', cell: (d) => (d.rule ? TRACKING_RULE_WORDS[d.rule] : 'None') },
  { head: 'Action', top: true, cell: (d) => TRACKING_ACTION_WORDS[d.action] ?? d.action },
  { head: 'Reason', class: 'text', cell: (d) => d.reason },
  { head: 'Claim', cell: (d) => <DecisionClaim decision={d} storeId={storeId} claimId={claimId} /> },
];

/** The package's events, newest first as the API answers them. */
function Events(props: { pkg: TTrackingPackage }) {
  const { pkg } = props;
  if (pkg.events.length === 0) return <p>No tracking event has come in for this package yet.</p>;
  return (
    <DataTable
      label={`Tracking events of package ${pkg.trackingNumber}`}
      caption="Events, newest first"
      columns={EVENT_COLUMNS}
      rows={pkg.events}
    />
  );
}

/** The rules' decisions on the package, newest first; the one that filed this claim is marked. */
function Decisions(props: { pkg: TTrackingPackage; storeId: string; claimId: string }) {
  const { pkg } = props;
  if (pkg.decisions.length === 0) return <p class="muted">The tracking rules have decided nothing on this package.</p>;
  return (
    <DataTable
      label={`Tracking rules' decisions on package ${pkg.trackingNumber}`}
      caption="Decisions of the tracking rules, newest first"
      columns={decisionColumns(props.storeId, props.claimId)}
      rows={pkg.decisions}
      rowClass={(d) => (d.action === 'filed' && d.claimId === props.claimId ? 'this-claim' : undefined)}
    />
  );
}

/** The claim a decision names: this one in words, another as a link. */
function DecisionClaim(props: { decision: TTrackingDecision; storeId: string; claimId: string }) {
  const { claimId, action } = props.decision;
  if (!claimId) return null;
  if (claimId === props.claimId)
    return action === 'filed' ? <strong>Filed this claim</strong> : <span>This claim</span>;
  return <a href={claimPath(props.storeId, claimId)}>Claim {claimId}</a>;
}

/** A fulfillment's packages in one line each: status in words and last scan (the order page). */
export function PackageSummaries(props: { packages: TTrackingPackage[] | undefined }) {
  const { packages } = props;
  if (packages === undefined) return <span class="muted">Tracking is not available</span>;
  if (packages.length === 0) return <span class="muted">Not tracked</span>;
  return (
    <ul class="packages">
      {packages.map((p) => (
        <li>
          {p.trackingNumber}: <TrackingLabel status={p.status} />
          {p.lastScanAt ? `, last scan ${shortDate(p.lastScanAt)}` : ', no carrier scan yet'}
        </li>
      ))}
    </ul>
  );
}
