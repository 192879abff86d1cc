// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { ISSUE_TYPES, type TIssueType } from '@protection-service/contract';
import {
  ProtectionApiError,
  type TMerchantSettings,
  type TMerchantSettingsUpdate,
  unwrap,
} from '@protection-service/sdk';
import express, { Router } from 'express';
import { Hidden, sendPage } from '../../html';
import { Check, NumberField, SelectField } from '../fields';
import { field, fields, seeOther, withNotice } from '../forms';
import { DashboardLayout, Notice, Refused } from '../frame';
import type { Dashboard, StorePage } from '../handlers';
import { DASHBOARD_PATH, storePath } from '../paths';
import type { MemberStore } from '../port';
import type { SignedIn } from '../staff-api';
import { shortDate, TYPE_WORDS } from '../words';
import {
  readTracking,
  type TrackingExtras,
  TrackingSection,
  type TrackingView,
  trackingForms,
} from './tracking-routes';

const SETTINGS = `${DASHBOARD_PATH}/stores/:storeId/settings`;

/** Who may write the defaults (D53): the API refuses the others, so the page offers them nothing. */
export function manages(store: MemberStore): boolean {
  return store.role === 'owner' || store.role === 'admin';
}

const BOOLEANS = [
  ['enableCancelAfterPurchase', 'Shoppers may cancel protection after purchase'],
  ['sendConfirmationEmail', 'Send a confirmation e-mail'],
  ['sendSmsUpdates', 'Send text message updates'],
  ['offerStoreCreditOnServicePurchase', 'Offer store credit as a resolution'],
] as const;

/**
 * The store's default settings (D50, D53): read with the staff token (`GET /v2/settings`),
 * written by an owner or admin with `PATCH /v1/stores/:storeId/settings` and their dashboard
 * token. The limits are the API's: a value beyond them is answered with its message, next
 * to the form, with what was typed kept.
 */
export function settingsPages(dashboard: Dashboard): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 30 });

  router.get(
    SETTINGS,
    dashboard.page((page) => sendSettings(dashboard, page, 200)),
  );

  router.post(
    SETTINGS,
    form,
    dashboard.form(
      (req) => storePath(String(req.params.storeId), 'settings'),
      async (page) => {
        const { req, res, session, store } = page;
        const change = changeOf(page.body);
        const written = await dashboard.staff
          .asUser(req, session)
          .stores.updateSettings({ params: { storeId: store.id }, body: change });
        try {
          unwrap(written);
        } catch (err) {
          if (!(err instanceof ProtectionApiError) || err.status !== 400) throw err;
          return sendSettings(dashboard, page, 400, { typed: change, error: err.body.message });
        }
        seeOther(res, withNotice(storePath(store.id, 'settings'), 'settingsSaved'));
      },
    ),
  );
  router.use(trackingForms(dashboard, (page, status, tracking) => sendSettings(dashboard, page, status, { tracking })));
  return router;
}

/**
 * The page, read afresh: the defaults with the staff token, and for an owner or admin the
 * tracking section (D54) with their own dashboard token (the API refuses it to other roles);
 * with what a form's answer adds (what was typed and refused, a source just made).
 */
async function sendSettings(
  dashboard: Dashboard,
  page: StorePage,
  status: number,
  extras: { typed?: TMerchantSettingsUpdate; error?: string; tracking?: TrackingExtras } = {},
): Promise<void> {
  const { req, res, session, store, api } = page;
  const { data } = unwrap(await api.client.settings.get());
  const tracking = manages(store)
    ? await readTracking(dashboard.staff.asUser(req, session), store.id, extras.tracking)
    : undefined;
  sendPage(
    res,
    status,
    <SettingsPage
      session={session}
      store={store}
      settings={data}
      typed={extras.typed}
      error={extras.error}
      tracking={tracking}
      notice={req.query.notice}
    />,
  );
}

/** The form as a PATCH body: every field, numbers as numbers (not one reaches the API as null, refused there). */
function changeOf(body: Record<string, unknown>): TMerchantSettingsUpdate {
  const number = (name: string) => {
    const value = field(body, name);
    return value === '' ? undefined : Number(value);
  };
  const change: Record<string, unknown> = {
    cancelAfterPurchaseDurationSeconds: number('cancelAfterPurchaseDurationSeconds'),
    storeCreditType: field(body, 'storeCreditType') || undefined,
    storeCreditBonus: number('storeCreditBonus'),
    storeCreditBonusType: field(body, 'storeCreditBonusType') || undefined,
    storeCreditMaxPercentage: number('storeCreditMaxPercentage'),
  };
  for (const [name] of BOOLEANS) change[name] = field(body, name) === 'on';
  change.photosRequiredFor = ISSUE_TYPES.filter((type) => fields(body, 'photosRequiredFor').includes(type));
  return change as TMerchantSettingsUpdate;
}

function SettingsPage(props: {
  session: SignedIn;
  store: MemberStore;
  settings: TMerchantSettings;
  typed?: TMerchantSettingsUpdate;
  error?: string;
  tracking?: TrackingView;
  notice?: unknown;
}) {
  const { store } = props;
  return (
    <DashboardLayout title="Settings" session={props.session} store={store} section="settings">
      <h1>Settings</h1>
      <Notice code={props.notice} />
      <p class="muted">
        The store's defaults. An app may override them for its own use. Last changed{' '}
        {shortDate(props.settings.updatedAt)}
        {props.settings.updatedByApplicationId ? ` by the app ${props.settings.updatedByApplicationId}` : ' here'}.
      </p>
      {manages(store) ? <SettingsForm {...props} /> : <SettingsFacts settings={props.settings} />}
      {props.tracking ? <TrackingSection session={props.session} store={store} view={props.tracking} /> : null}
    </DashboardLayout>
  );
}

/** The form an owner or admin writes with, what they typed kept after a refusal. */
function SettingsForm(props: Parameters<typeof SettingsPage>[0]) {
  const { store } = props;
  const v = { ...props.settings, ...props.typed };
  return (
    <form method="post" action={storePath(store.id, 'settings')} class="card stack" novalidate>
      <Hidden values={{ csrf: props.session.csrf }} />
      <div id="settings-error">
        <Refused message={props.error} />
      </div>
      <fieldset class="stack">
        <legend>Cancelling and messages</legend>
        {BOOLEANS.slice(0, 3).map(([name, label]) => (
          <Check name={name} label={label} checked={v[name] === true} />
        ))}
        <NumberField
          name="cancelAfterPurchaseDurationSeconds"
          label="Cancelling window (seconds)"
          value={v.cancelAfterPurchaseDurationSeconds}
          step={1}
          hint="Whole seconds, 0 or more. 86400 is one day."
          errorId="settings-error"
        />
      </fieldset>
      <fieldset class="stack">
        <legend>Store credit</legend>
        <Check name={BOOLEANS[3][0]} label={BOOLEANS[3][1]} checked={v.offerStoreCreditOnServicePurchase === true} />
        <SelectField
          id="storeCreditType"
          label="Store credit as"
          options={[
            ['GIFT_CARD', 'Gift card'],
            ['DISCOUNT_CODE', 'Discount code'],
          ]}
          selected={v.storeCreditType}
          errorId="settings-error"
        />
        <SelectField
          id="storeCreditBonusType"
          label="Bonus kind"
          options={[
            ['flat', 'A flat amount'],
            ['percentage', 'A percentage of the credit'],
          ]}
          selected={v.storeCreditBonusType}
          errorId="settings-error"
        />
        <NumberField
          name="storeCreditBonus"
          label="Bonus"
          value={v.storeCreditBonus}
          hint="0 or more: an amount in the store's currency, or a percentage, as the bonus kind says."
          errorId="settings-error"
        />
        <NumberField
          name="storeCreditMaxPercentage"
          label="Most store credit (percent of the claim)"
          value={v.storeCreditMaxPercentage}
          max={100}
          hint="From 0 to 100."
          errorId="settings-error"
        />
      </fieldset>
      <PhotosRequired chosen={v.photosRequiredFor} />
      <div class="actions">
        <button type="submit" class="primary">
          Save settings
        </button>
      </div>
    </form>
  );
}

/** D56: the issue types for which the shopper's claim form asks for photos, one box each. */
function PhotosRequired(props: { chosen: readonly TIssueType[] | undefined }) {
  return (
    <fieldset class="stack">
      <legend>Photos on shoppers' claims</legend>
      <p class="muted">The claim form asks for at least one photo of an item with one of these issues.</p>
      {ISSUE_TYPES.map((type) => (
        <div class="check">
          <input
            type="checkbox"
            id={`photosRequiredFor-${type}`}
            name="photosRequiredFor"
            value={type}
            checked={props.chosen?.includes(type) === true}
          />
          <label for={`photosRequiredFor-${type}`}>{TYPE_WORDS[type]}</label>
        </div>
      ))}
    </fieldset>
  );
}

/** The issue types named in words, or "None". */
function photoTypesInWords(types: readonly TIssueType[]): string {
  return types.length === 0 ? 'None' : types.map((type) => TYPE_WORDS[type]).join(', ');
}

/** The values, read only, for a role that may not change them. */
function SettingsFacts(props: { settings: TMerchantSettings }) {
  return (
    <>
      <p>Only an owner or admin of the store can change these.</p>
      <dl class="facts card">
        {BOOLEANS.map(([name, label]) => (
          <>
            <dt>{label}</dt>
            <dd>{props.settings[name] ? 'Yes' : 'No'}</dd>
          </>
        ))}
        <dt>Cancelling window (seconds)</dt>
        <dd>{props.settings.cancelAfterPurchaseDurationSeconds}</dd>
        <dt>Store credit as</dt>
        <dd>{props.settings.storeCreditType === 'GIFT_CARD' ? 'Gift card' : 'Discount code'}</dd>
        <dt>Bonus</dt>
        <dd>
          {props.settings.storeCreditBonus}
          {props.settings.storeCreditBonusType === 'percentage' ? ' %' : ' (flat amount)'}
        </dd>
        <dt>Most store credit (percent of the claim)</dt>
        <dd>{props.settings.storeCreditMaxPercentage}</dd>
        <dt>Photos asked on shoppers' claims for</dt>
        <dd>{photoTypesInWords(props.settings.photosRequiredFor)}</dd>
      </dl>
    </>
  );
}
