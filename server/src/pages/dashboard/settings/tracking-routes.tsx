// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import {
  type Client,
  ProtectionApiError,
  type TTrackingSettings,
  type TTrackingSettingsUpdate,
  type TTrackingSource,
  type TTrackingSourceCreate,
  type TTrackingSourceCreated,
  unwrap,
} from '@protection-service/sdk';
import express, { type Request, Router } from 'express';
import { Hidden } from '../../html';
import { type Column, DataTable } from '../data-table';
import { Check, Field, NumberField, SelectField } from '../fields';
import { field, seeOther, withNotice } from '../forms';
import { Refused } from '../frame';
import type { Dashboard, StoreForm, StorePage } from '../handlers';
import { DASHBOARD_PATH, storePath } from '../paths';
import type { MemberStore } from '../port';
import type { SignedIn } from '../staff-api';
import { RESOLUTION_WORDS, shortDate } from '../words';

const SETTINGS = `${DASHBOARD_PATH}/stores/:storeId/settings`;
const RULES = `${SETTINGS}/tracking`;
const SOURCES = `${SETTINGS}/tracking-sources`;
const REMOVE = `${SOURCES}/:sourceId/remove`;

/** The tracking section's forms, for the dashboard's route table. */
export const TRACKING_FORM_PATHS = [RULES, SOURCES, REMOVE] as const;

/** What a tracking form's answer adds to the section: what was typed and refused, a source just made. */
export interface TrackingExtras {
  typed?: TTrackingSettingsUpdate;
  rulesError?: string;
  sourceError?: string;
  /** The provider chosen in a refused "Add source" (a secret typed is never written back). */
  provider?: string;
  /** A source just registered; its secret only when the service made it (the person's own is not repeated). */
  created?: TTrackingSourceCreated;
}

/** The section as read from the API, with what a form's answer adds. */
export interface TrackingView extends TrackingExtras {
  settings: TTrackingSettings;
  sources: TTrackingSource[];
}

/** How a tracking form answers with the whole settings page (a refusal, or a new source's secret). */
export type SendSettings = (page: StorePage, status: number, tracking: TrackingExtras) => Promise<void>;

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

/**
 * The store's tracking rules and sources (D54) as an owner or admin reads them: routes of the
 * person's own dashboard token, which check the role themselves (D49, D53).
 */
export async function readTracking(user: Client, storeId: string, extras: TrackingExtras = {}): Promise<TrackingView> {
  const params = { storeId };
  const [settings, sources] = await Promise.all([
    user.tracking.getSettings({ params }),
    user.tracking.listSources({ params }),
  ]);
  return { ...extras, settings: unwrap(settings).data, sources: unwrap(sources).data };
}

/**
 * The settings page's tracking forms (D50, D54): the rules (`PUT …/tracking-settings`), "Add
 * source" and "Remove". The API refuses roles other than owner and admin (403, said as "your
 * role does not allow this"); a value beyond its limits is answered with its message next to
 * the form. These routes take no Idempotency-Key (D33 is for token POSTs): the rules are a PUT
 * and a removal a DELETE, idempotent by nature, and a source's answer holds its secret, which
 * is kept nowhere but in the page that answers.
 */
export function trackingForms(dashboard: Dashboard, send: SendSettings): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 20 });
  const back = (req: Request) => storePath(String(req.params.storeId), 'settings');
  router.post(
    RULES,
    form,
    dashboard.form(back, (page) => saveRules(dashboard, page, send)),
  );
  router.post(
    SOURCES,
    form,
    dashboard.form(back, (page) => addSource(dashboard, page, send)),
  );
  router.post(
    REMOVE,
    form,
    dashboard.form(back, (page) => removeSource(dashboard, page)),
  );
  return router;
}

async function saveRules(dashboard: Dashboard, page: StoreForm, send: SendSettings): Promise<void> {
  const { req, res, session, store, body } = page;
  const typed = rulesOf(body);
  const answer = await dashboard.staff
    .asUser(req, session)
    .tracking.updateSettings({ params: { storeId: store.id }, body: typed });
  const refusal = inputRefused(answer);
  if (refusal !== undefined) return send(page, 400, { typed, rulesError: refusal });
  seeOther(res, withNotice(storePath(store.id, 'settings'), 'trackingSaved'));
}

/**
 * A new source answers with the page itself, never a redirect: its secret is in no address
 * and in no store of the dashboard's, so reading the page again never shows it (D54).
 */
async function addSource(dashboard: Dashboard, page: StoreForm, send: SendSettings): Promise<void> {
  const { req, session, store, body } = page;
  const secret = field(body, 'secret');
  const create = { provider: field(body, 'provider'), ...(secret ? { secret } : {}) } as TTrackingSourceCreate;
  const answer = await dashboard.staff
    .asUser(req, session)
    .tracking.createSource({ params: { storeId: store.id }, body: create });
  const refusal = inputRefused(answer);
  if (refusal !== undefined) return send(page, 400, { sourceError: refusal, provider: create.provider });
  await send(page, 200, { created: unwrap(answer).data });
}

async function removeSource(dashboard: Dashboard, page: StoreForm): Promise<void> {
  const { req, res, session, store } = page;
  const answer = await dashboard.staff
    .asUser(req, session)
    .tracking.removeSource({ params: { storeId: store.id, sourceId: String(req.params.sourceId) } });
  const settings = storePath(store.id, 'settings');
  // Removed already (a second click, or someone else): said, not an error page.
  if (answer.status === 404) return seeOther(res, withNotice(settings, 'sourceGone'));
  unwrap(answer);
  seeOther(res, withNotice(settings, 'sourceRemoved'));
}

/** The API's message when it refused the input (400); any other refusal goes on to the frame. */
function inputRefused(answer: { status: number; body: unknown; headers: Headers }): string | undefined {
  try {
    unwrap(answer);
    return undefined;
  } catch (err) {
    if (err instanceof ProtectionApiError && err.status === 400) return err.body.message;
    throw err;
  }
}

/** The rules form as a PUT body: an empty number keeps its value, the API judges the rest. */
function rulesOf(body: Record<string, unknown>): TTrackingSettingsUpdate {
  const days = (name: string) => {
    const value = field(body, name);
    return value === '' ? undefined : Number(value);
  };
  const change: Record<string, unknown> = {
    mode: field(body, 'mode') || undefined,
    lostNoMovementDays: days('lostNoMovementDays'),
    lostAfterEstimatedDays: days('lostAfterEstimatedDays'),
    delayedEnabled: field(body, 'delayedEnabled') === 'on',
    delayedAfterEstimatedDays: days('delayedAfterEstimatedDays'),
    claimWindowDays: days('claimWindowDays'),
    resolutionRequested: field(body, 'resolutionRequested') || undefined,
  };
  return change as TTrackingSettingsUpdate;
}

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
          <div class="mode">
            <input
              type="radio"
              id={`mode-${mode}`}
              name="mode"
              value={mode}
              checked={v.mode === mode}
              aria-describedby={`mode-${mode}-hint`}
            />
            <div>
              <label for={`mode-${mode}`}>{label}</label>
              <span id={`mode-${mode}-hint`} class="muted">
                {sentence}
              </span>
            </div>
          </div>
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
