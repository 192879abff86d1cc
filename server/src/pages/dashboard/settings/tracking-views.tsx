// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type {
  TTrackingSettings,
  TTrackingSettingsUpdate,
  TTrackingSource,
  TTrackingSourceCreated,
} from '@protection-service/sdk';
import { Hidden } from '../../html';
import { type Column, DataTable } from '../data-table';
import { Check, Choice, Field, NumberField, SelectField } from '../fields';
import { Refused } from '../frame';
import { storePath } from '../paths';
import type { MemberStore } from '../port';
import type { SignedIn } from '../staff-api';
import { RESOLUTION_WORDS, shortDate } from '../words';
import type { TrackingView } from './load';

const PROVIDER_WORDS: Record<TTrackingSource['provider'], string> = {
  aftership: 'AfterShip',
  easypost: 'EasyPost',
  ship24: 'Ship24',
};

const MODES: readonly [TTrackingSettings['mode'], string, string][] = [
  ['off', 'Off', 'Packages are tracked and shown on their orders; no rule acts on them.'],
  ['notify', 'Notify only', "When a rule holds, the store's apps get a tracking/alert webhook. No claim is filed."],
  [
    'file',
    'File claims',
    'When a package of a protected order is lost, late or returned, a claim is filed for the shopper ' +
      "(who gets the usual e-mail), one per package, and the store's apps get tracking/alert.",
  ],
];

interface SectionProps {
  session: SignedIn;
  store: MemberStore;
  view: TrackingView;
}

/** The settings page's "Tracking" section (D54), for an owner or admin. */
export function TrackingSection(props: SectionProps) {
  return (
    <section id="tracking" aria-labelledby="tracking-heading" class="tracking-settings">
      <h2 id="tracking-heading">Tracking</h2>
      <p class="muted">
        Where carrier updates come from, and what the service does when a package looks lost, late or returned to the
        sender.
      </p>
      <RulesForm {...props} />
      <Sources {...props} />
    </section>
  );
}

function RulesForm(props: SectionProps) {
  const v = { ...props.view.settings, ...props.view.typed };
  return (
    <form
      method="post"
      action={`${storePath(props.store.id, 'settings', 'tracking')}#tracking`}
      class="card stack"
      aria-labelledby="tracking-rules-heading"
      novalidate
    >
      <Hidden values={{ csrf: props.session.csrf }} />
      <h3 id="tracking-rules-heading">Rules</h3>
      <div id="tracking-error">
        <Refused message={props.view.rulesError} />
      </div>
      <fieldset class="stack modes">
        <legend>When a rule holds</legend>
        {MODES.map(([mode, label, sentence]) => (
          <Choice name="mode" value={mode} label={label} hint={sentence} checked={v.mode === mode} />
        ))}
      </fieldset>
      <RuleDays v={v} />
      <div class="actions">
        <button type="submit" class="primary">
          Save tracking rules
        </button>
      </div>
    </form>
  );
}

function RuleDays(props: { v: TTrackingSettingsUpdate }) {
  const { v } = props;
  const days = { step: 1, max: 365, errorId: 'tracking-error' };
  return (
    <>
      <fieldset class="stack">
        <legend>Lost</legend>
        <NumberField
          {...days}
          name="lostNoMovementDays"
          label="Days without a carrier scan"
          value={v.lostNoMovementDays}
          min={1}
          hint="A package is lost after this many days without a scan, from 1 to 365."
        />
        <NumberField
          {...days}
          name="lostAfterEstimatedDays"
          label="Days past the estimated delivery (lost)"
          value={v.lostAfterEstimatedDays}
          hint="Or this many days past its estimated delivery without being delivered, from 0 to 365."
        />
      </fieldset>
      <fieldset class="stack">
        <legend>Late</legend>
        <Check name="delayedEnabled" label="Act on late packages" checked={v.delayedEnabled === true} />
        <NumberField
          {...days}
          name="delayedAfterEstimatedDays"
          label="Days past the estimated delivery (late)"
          value={v.delayedAfterEstimatedDays}
          hint="A package is late this many days past its estimated delivery, from 0 to 365."
        />
      </fieldset>
      <fieldset class="stack">
        <legend>Claims filed</legend>
        <NumberField
          {...days}
          name="claimWindowDays"
          label="Days after shipping a claim may be filed"
          value={v.claimWindowDays}
          min={1}
          hint="Shipping is the first carrier scan. From 1 to 365."
        />
        <SelectField
          id="resolutionRequested"
          label="Resolution the claim asks for"
          options={Object.entries(RESOLUTION_WORDS)}
          selected={v.resolutionRequested}
          errorId="tracking-error"
        />
      </fieldset>
    </>
  );
}

function Sources(props: SectionProps) {
  const { view } = props;
  return (
    <section id="tracking-sources" class="card stack" aria-labelledby="tracking-sources-heading">
      <h3 id="tracking-sources-heading">Sources</h3>
      {view.created ? <NewSource source={view.created} /> : null}
      <p class="muted">
        The carrier aggregators that send this store's tracking updates. Give each its inbound URL; every delivery is
        checked against the source's secret.
      </p>
      {view.sources.length === 0 ? <p>No source yet.</p> : <SourceTable {...props} />}
      <AddSource {...props} />
    </section>
  );
}

/** A source just registered: its address, and the secret the service made, this once. */
function NewSource(props: { source: TTrackingSourceCreated }) {
  const { source } = props;
  return (
    <section class="new-source stack" aria-labelledby="new-source-heading">
      <h4 id="new-source-heading">{PROVIDER_WORDS[source.provider]} source added</h4>
      <p class="notice">
        {source.secret
          ? 'Copy the secret now: it will not be shown again. Give the provider the inbound URL and this secret.'
          : 'Give the provider the inbound URL, with the secret you entered (it is not shown here).'}
      </p>
      <dl class="facts">
        <dt>Inbound URL</dt>
        <dd>
          <code class="code" id="new-source-url">
            {source.inboundUrl}
          </code>
        </dd>
        {source.secret ? (
          <>
            <dt>Secret</dt>
            <dd>
              <code class="code" id="new-source-secret">
                {source.secret}
              </code>
            </dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

type Source = SectionProps['view']['sources'][number];

/** The sources: the provider on top on a phone, its inbound URL, when it was added and its removal beneath. */
const sourceColumns = (props: SectionProps): Column<Source>[] => [
  { head: 'Provider', top: true, cell: (source) => PROVIDER_WORDS[source.provider] },
  { head: 'Inbound URL', cell: (source) => <code class="code">{source.inboundUrl}</code> },
  { head: 'Added', cell: (source) => shortDate(source.createdAt) },
  {
    head: 'Remove',
    bare: true,
    hideHead: true,
    cell: (source) => <RemoveSource session={props.session} store={props.store} source={source} />,
  },
];

function SourceTable(props: SectionProps) {
  return (
    <DataTable
      label="Tracking sources"
      caption="Where tracking events come in from"
      quietCaption
      columns={sourceColumns(props)}
      rows={props.view.sources}
    />
  );
}

/** "Remove", confirmed in a second step that says what it ends (no script: a disclosure). */
function RemoveSource(props: { session: SignedIn; store: MemberStore; source: TTrackingSource }) {
  const { source } = props;
  return (
    <details class="confirm">
      <summary>Remove…</summary>
      <form
        method="post"
        action={`${storePath(props.store.id, 'settings', 'tracking-sources', source.id)}/remove`}
        class="stack"
      >
        <Hidden values={{ csrf: props.session.csrf }} />
        <p>Deliveries to this URL will be refused from now on. Packages and claims already kept stay.</p>
        <button type="submit" class="danger">
          Yes, remove this source
        </button>
      </form>
    </details>
  );
}

function AddSource(props: SectionProps) {
  return (
    <form
      method="post"
      action={`${storePath(props.store.id, 'settings', 'tracking-sources')}#tracking-sources`}
      class="stack"
      aria-labelledby="add-source-heading"
      novalidate
    >
      <Hidden values={{ csrf: props.session.csrf }} />
      <h4 id="add-source-heading">Add source</h4>
      <div id="source-error">
        <Refused message={props.view.sourceError} />
      </div>
      <SelectField
        id="provider"
        label="Provider"
        options={Object.entries(PROVIDER_WORDS)}
        selected={props.view.provider}
        errorId="source-error"
      />
      <Field
        id="secret"
        label="Webhook secret (optional)"
        hint="The secret set at the provider, 16 characters or more. Leave it empty and one is made for you, shown once."
        errorId="source-error"
        control={(d) => <input {...d} type="password" name="secret" autocomplete="off" maxLength={255} />}
      />
      <div class="actions">
        <button type="submit" class="primary">
          Add source
        </button>
      </div>
    </form>
  );
}
