// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TIssueType, TResolutionType } from '@protection-service/contract';
import { ISSUE_TYPES } from '@protection-service/contract';
import type { FormStore, FoundOrder } from '../../domain/claims/shopper-form';
import { Hidden, Layout, MessagePage } from '../html';

/** D56's words, each said once. */
export const MISS_MESSAGE = 'We could not find an order with that number and e-mail';
export const CLAIM_FORM_PATH = '/claims/new';
export const CLAIM_FORM_FILE_PATH = '/claims/new/file';
export const CLAIM_FORM_PHOTO_PATH = '/claims/new/photos';
export const CLAIM_FORM_SCRIPT_PATH = '/pages/claim-form.js';

/** D56 "What happened": the issue types (D22) in a shopper's words. */
export const ISSUE_WORDS: Record<TIssueType, string> = {
  DAMAGED: 'It arrived damaged',
  DEFECTIVE_ITEM: 'It does not work',
  MISSING_ITEM: 'It was missing from the package',
  ORDER_DELIVERED_NOT_RECEIVED: 'Shown as delivered, but it never arrived',
  RETURNED_TO_SENDER: 'It was sent back to the store',
  STOLEN: 'It was stolen',
  WRONG_ITEM: 'I received the wrong item',
};

/** D56 "What would you like": the resolutions in a shopper's words. */
export const RESOLUTION_CHOICE_WORDS: Record<TResolutionType, string> = {
  REFUND: 'My money back',
  RESHIP: 'A replacement sent to me',
  STORE_CREDIT: 'Store credit',
};

const withStore = (path: string, store: FormStore) => `${path}?store=${encodeURIComponent(store.domain)}`;

/** Step one: "Order number" and "Email", then "Find my order"; a miss says so, whatever was wrong. */
export function LookupPage(props: {
  store: FormStore;
  csrf: string;
  orderNumber?: string;
  email?: string;
  miss?: boolean;
}) {
  const { store } = props;
  return (
    <Layout title={`File a claim with ${store.name}`}>
      <section class="card stack" aria-labelledby="title">
        <h1 id="title">File a claim with {store.name}</h1>
        <p>Something wrong with your order? Find it with its number and the e-mail you ordered with.</p>
        <form method="post" action={withStore(CLAIM_FORM_PATH, store)} class="stack">
          <Hidden values={{ csrf: props.csrf }} />
          {props.miss ? (
            <p class="error" role="alert" id="lookup-error">
              {MISS_MESSAGE}
            </p>
          ) : null}
          <label for="orderNumber">Order number</label>
          <input
            id="orderNumber"
            name="orderNumber"
            required
            maxLength={100}
            autocomplete="off"
            value={props.orderNumber ?? ''}
            aria-describedby={props.miss ? 'lookup-error' : undefined}
          />
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            required
            maxLength={320}
            autocomplete="email"
            value={props.email ?? ''}
            aria-describedby={props.miss ? 'lookup-error' : undefined}
          />
          <button type="submit" class="primary">
            Find my order
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** What the shopper typed in step two, kept when the form is answered with a refusal. */
export interface TypedClaim {
  lines: Record<number, { claim: boolean; quantity: string; issue: string; details: string; photoUrls: string[] }>;
  resolution: string;
}

export const NOTHING_TYPED: TypedClaim = { lines: {}, resolution: '' };

/** Step two: the order's lines with what is left to claim of each (D39), then "File claim". */
export function ClaimFormPage(props: {
  store: FormStore;
  csrf: string;
  pass: string;
  order: FoundOrder;
  typed: TypedClaim;
  errors?: string[];
}) {
  const { store, order } = props;
  const claimable = order.lines.filter((l) => l.claimable > 0);
  return (
    <Layout title={`Your order ${order.orderNumber}`}>
      <section class="card stack" aria-labelledby="title">
        <h1 id="title">Your order {order.orderNumber}</h1>
        <p>Choose the items the claim is about and tell {store.name} what happened.</p>
        {order.lines.length === 0 ? (
          <p>The items of this order are not known here. Contact {store.name} about it.</p>
        ) : claimable.length === 0 ? (
          <p>Every item of this order is in a claim already. The e-mail you received links to each claim.</p>
        ) : (
          <ClaimForm {...props} />
        )}
      </section>
      <script src={CLAIM_FORM_SCRIPT_PATH} defer />
    </Layout>
  );
}

function ClaimForm(props: Parameters<typeof ClaimFormPage>[0]) {
  const { store, order, typed } = props;
  return (
    <form
      method="post"
      action={withStore(CLAIM_FORM_FILE_PATH, store)}
      enctype="multipart/form-data"
      class="stack"
      data-upload={withStore(CLAIM_FORM_PHOTO_PATH, store)}
    >
      <Hidden values={{ csrf: props.csrf, pass: props.pass }} />
      {props.errors && props.errors.length > 0 ? (
        <div class="error" role="alert" id="claim-errors">
          <p>The claim was not filed:</p>
          <ul>
            {props.errors.map((e) => (
              <li>{e}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {order.lines.map((line, i) =>
        line.claimable > 0 ? (
          <LineFields index={i} line={line} typed={typed.lines[i]} photosFor={order.photosRequiredFor} />
        ) : null,
      )}
      <fieldset class="stack">
        <legend>What would you like</legend>
        {order.resolutions.map((r, k) => (
          <div class="check">
            <input
              type="radio"
              id={`resolution-${r}`}
              name="resolution"
              value={r}
              required
              checked={typed.resolution === r || (typed.resolution === '' && k === 0)}
            />
            <label for={`resolution-${r}`}>{RESOLUTION_CHOICE_WORDS[r]}</label>
          </div>
        ))}
      </fieldset>
      <button type="submit" class="primary">
        File claim
      </button>
    </form>
  );
}

/** One line of the order: its checkbox, "Quantity", "What happened", "Details" and "Photos". */
function LineFields(props: {
  index: number;
  line: FoundOrder['lines'][number];
  typed: TypedClaim['lines'][number] | undefined;
  photosFor: readonly TIssueType[];
}) {
  const { index: i, line, typed } = props;
  const name = line.name ?? `Item ${line.itemId}`;
  return (
    <fieldset class="stack line">
      <legend>{name}</legend>
      <div class="check">
        <input type="checkbox" id={`claim-${i}`} name={`claim.${i}`} checked={typed?.claim === true} />
        <label for={`claim-${i}`}>This item is part of my claim</label>
      </div>
      <p class="muted">
        {line.claimable} of {line.ordered} can be claimed.
      </p>
      <label for={`quantity-${i}`}>Quantity</label>
      <input
        id={`quantity-${i}`}
        name={`quantity.${i}`}
        type="number"
        inputMode="numeric"
        min={1}
        max={line.claimable}
        step={1}
        value={typed?.quantity ?? String(line.claimable)}
      />
      <label for={`issue-${i}`}>What happened</label>
      <select id={`issue-${i}`} name={`issue.${i}`}>
        {ISSUE_TYPES.map((type) => (
          <option value={type} selected={typed?.issue === type}>
            {ISSUE_WORDS[type]}
          </option>
        ))}
      </select>
      <label for={`details-${i}`}>Details</label>
      <textarea id={`details-${i}`} name={`details.${i}`} rows={3} maxLength={2000}>
        {typed?.details ?? ''}
      </textarea>
      <label for={`photos-${i}`}>Photos</label>
      <p class="muted" id={`photos-hint-${i}`}>
        JPEG, PNG, WebP or HEIC, up to 10 MB each. Needed for: {photoNeeds(props.photosFor)}.
      </p>
      <input
        id={`photos-${i}`}
        name={`photos.${i}`}
        type="file"
        multiple
        accept="image/jpeg,image/png,image/webp,image/heic,image/heif"
        aria-describedby={`photos-hint-${i}`}
        data-line={String(i)}
      />
      <ul class="uploads" id={`uploads-${i}`} aria-live="polite">
        {(typed?.photoUrls ?? []).map((url, k) => (
          <li>
            <input type="hidden" name={`photoUrl.${i}`} value={url} />
            Photo {k + 1} added
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

const photoNeeds = (types: readonly TIssueType[]) =>
  types.length === 0 ? 'never' : types.map((t) => `"${ISSUE_WORDS[t]}"`).join(', ');

export function UnknownStorePage() {
  return (
    <MessagePage title="Store not found">
      <p>This address opens no store's claim form. Use the link the store gave you.</p>
    </MessagePage>
  );
}

/** D4, D56: past the per-address limit of lookups. */
export function TooManyLookups(props: { seconds: number }) {
  return (
    <MessagePage title="Too many attempts">
      <p>Too many orders were looked up from this address. Wait {props.seconds} seconds, then try again.</p>
    </MessagePage>
  );
}
