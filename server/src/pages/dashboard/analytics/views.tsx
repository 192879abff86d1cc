// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TAnalyticsSeries, TAnalyticsSummary, TOfferResult } from '@protection-service/contract';
import { type Column, DataTable } from '../data-table';
import { DashboardLayout } from '../frame';
import { storePath } from '../paths';
import type { MemberStore } from '../port';
import type { SignedIn } from '../staff-api';
import { RESOLUTION_WORDS, TYPE_WORDS } from '../words';
import { type Analytics, PRESETS, type Preset } from './load';

/** A fraction as a percentage to one decimal, or a dash when there was nothing to divide (D52). */
export function percent(rate: number | null): string {
  return rate === null ? '—' : `${(Math.round(rate * 1000) / 10).toFixed(1)}%`;
}
const money = (list: { currency: string; amount: string }[]) =>
  list.length === 0 ? 'None' : list.map((m) => `${m.amount} ${m.currency}`).join(', ');

/**
 * The store's figures (D52): the last 30, 90 or 365 days to today (UTC), the summary, and
 * claims and protected orders per day, week or month as SVG drawn here, each followed by the
 * same numbers as a table. Only roles holding analytics:read see it; the API refuses others.
 */
export function AnalyticsPage(props: { session: SignedIn; store: MemberStore; preset: Preset; data: Analytics }) {
  const { store, data } = props;
  return (
    <DashboardLayout title="Analytics" session={props.session} store={store} section="analytics">
      <h1>Analytics</h1>
      <Presets storeId={store.id} current={props.preset} />
      <p class="muted">
        {data.period.from} to {data.period.to} (UTC days, both included).
      </p>
      <Figures summary={data.summary} />
      <Chart series={data.series} field="claims" label="Claims" />
      <Chart series={data.series} field="protectedOrders" label="Protected orders" />
      <Tops summary={data.summary} />
      <Offers results={data.offers} />
    </DashboardLayout>
  );
}

function Presets(props: { storeId: string; current: Preset }) {
  return (
    <nav aria-label="Period" class="tabs">
      <ul>
        {PRESETS.map((p) => (
          <li>
            <a
              href={`${storePath(props.storeId, 'analytics')}?days=${p.days}`}
              aria-current={p === props.current ? 'page' : undefined}
            >
              Last {p.days} days
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Figures({ summary: s }: { summary: TAnalyticsSummary }) {
  const rows: [string, string][] = [
    ['Orders', String(s.orders)],
    ['Protected orders', String(s.protectedOrders)],
    ['Attach rate', percent(s.attachRate)],
    ['Premiums', money(s.premiums)],
    ['Claims', String(s.claims)],
    ['Claim rate', percent(s.claimRate)],
    ['Approval rate', percent(s.approvalRate)],
    ['Median hours to decision', s.medianHoursToDecision === null ? '—' : String(s.medianHoursToDecision)],
  ];
  return (
    <section class="card" aria-labelledby="figures">
      <h2 id="figures">Figures</h2>
      <dl class="facts">
        {rows.map(([term, value]) => (
          <>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </>
        ))}
      </dl>
      <h3>Paid out</h3>
      {s.paidOut.length === 0 ? (
        <p>Nothing paid out in this period.</p>
      ) : (
        <SimpleTable
          caption="Paid out per resolution and currency"
          head={['Resolution', 'Currency', 'Amount']}
          rows={s.paidOut.map((p) => [
            RESOLUTION_WORDS[p.resolutionType as keyof typeof RESOLUTION_WORDS] ?? p.resolutionType,
            p.currency,
            p.amount,
          ])}
        />
      )}
    </section>
  );
}

function Tops({ summary: s }: { summary: TAnalyticsSummary }) {
  const lists: [string, string, [string, number][]][] = [
    [
      'Top issue types',
      'Issue',
      s.topIssueTypes.map((t) => [TYPE_WORDS[t.issueType as keyof typeof TYPE_WORDS] ?? t.issueType, t.claims]),
    ],
    ['Top products', 'Product', s.topProducts.map((t) => [t.name ?? t.sourceProductId, t.claims])],
    ['Top carriers', 'Carrier', s.topCarriers.map((t) => [t.carrier, t.claims])],
  ];
  return (
    <div class="grid">
      {lists.map(([title, head, rows]) => (
        <section class="card" aria-label={title}>
          <h2>{title}</h2>
          {rows.length === 0 ? (
            <p>None in this period.</p>
          ) : (
            <SimpleTable caption={title} head={[head, 'Claims']} rows={rows.map(([k, n]) => [k, String(n)])} />
          )}
        </section>
      ))}
    </div>
  );
}

/** D55: what the storefront offer sold, the store's own offer and each cohort's. */
function Offers({ results }: { results: TOfferResult[] }) {
  const source = (r: TOfferResult) =>
    r.source === 'merchant' ? "The store's offer" : `${r.partnerVariantKey} (app ${r.partnerApplicationId})`;
  return (
    <section class="card" aria-labelledby="offers-heading">
      <h2 id="offers-heading">Storefront offer</h2>
      {results.length === 0 ? (
        <p>No order in this period carried a storefront offer.</p>
      ) : (
        <SimpleTable
          caption="Storefront offer per cohort"
          head={['Offer', 'Offered', 'Selected', 'Select rate', 'Shown checked', 'Premiums']}
          rows={results.map((r) => [
            source(r),
            String(r.offered),
            String(r.selected),
            percent(r.selectRate),
            percent(r.preselectedShare),
            money(r.premiums),
          ])}
        />
      )}
    </section>
  );
}

/** Figures as a DataTable: a column a head, the first on top on a phone. */
function SimpleTable(props: { caption: string; head: string[]; rows: string[][] }) {
  const columns: Column<string[]>[] = props.head.map((head, i) => ({ head, top: i === 0, cell: (r) => r[i] }));
  return <DataTable label={props.caption} caption={props.caption} quietCaption columns={columns} rows={props.rows} />;
}

const W = 640;
const H = 160;
const PER = { day: 'day', week: 'week', month: 'month' } as const;

/** Bars drawn on the server (D52): an SVG with its name, then the same numbers as a table. */
function Chart(props: { series: TAnalyticsSeries; field: 'claims' | 'protectedOrders'; label: string }) {
  const { points, interval } = props.series;
  const name = `${props.label} per ${PER[interval]}`;
  const max = Math.max(1, ...points.map((p) => p[props.field]));
  const slot = W / Math.max(1, points.length);
  return (
    <section class="card chart" aria-label={name}>
      <h2>{name}</h2>
      <svg
        role="img"
        aria-label={`${name}, at most ${max}`}
        viewBox={`0 0 ${W} ${H + 2}`}
        preserveAspectRatio="none"
        class="bars"
      >
        <title>{`${name}, at most ${max}`}</title>
        <line x1="0" y1={H} x2={W} y2={H} class="axis" />
        {points.map((p, i) => {
          const h = Math.round((p[props.field] / max) * (H - 8));
          return <rect x={(i * slot + slot * 0.1).toFixed(1)} y={H - h} width={(slot * 0.8).toFixed(1)} height={h} />;
        })}
      </svg>
      <SimpleTable
        caption={name}
        head={[
          interval === 'day' ? 'Day' : `${PER[interval][0]!.toUpperCase()}${PER[interval].slice(1)} from`,
          props.label,
        ]}
        rows={points.map((p) => [p.start, String(p[props.field])])}
      />
    </section>
  );
}
