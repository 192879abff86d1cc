// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { ISSUE_TYPES, type TIssueType } from '@protection-service/contract';
import type { TMerchantSettings, TMerchantSettingsUpdate } from '@protection-service/sdk';
import { Hidden } from '../../html';
import { Check, NumberField, SelectField } from '../fields';
import { DashboardLayout, manages, Notice, Refused } from '../frame';
import { storePath } from '../paths';
import type { MemberStore } from '../port';
import type { SignedIn } from '../staff-api';
import { shortDate, TYPE_WORDS } from '../words';
import { BOOLEANS } from './forms';
import type { TrackingView } from './load';
import { TrackingSection } from './tracking-views';

/** The settings page (D50, D53): the store's defaults, a form for an owner or admin, and their tracking section (D54). */
export function SettingsPage(props: {
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
        <Check
          id={`photosRequiredFor-${type}`}
          name="photosRequiredFor"
          value={type}
          label={TYPE_WORDS[type]}
          checked={props.chosen?.includes(type) === true}
        />
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
