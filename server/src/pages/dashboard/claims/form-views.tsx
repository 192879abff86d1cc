// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TClaim } from '@protection-service/sdk';
import type { ComponentChildren } from 'preact';
import { Hidden } from '../../html';
import { Field, SelectField } from '../fields';
import { newFormKey } from '../forms';
import { claimPath } from '../paths';
import { DENY_REASON_WORDS, RESOLUTION_WORDS, STATE_WORDS } from '../words';
import { type ClaimForm, DENY_REASONS, type ItemChoice, moveTargets } from './forms';
import { itemName } from './views';

/**
 * The claim page's forms with D50's words (D53 "Shapes and words"). Each posts to its own
 * path under the claim with the session's CSRF token and an idempotency key new with the page.
 */
interface FormProps {
  storeId: string;
  claim: TClaim;
  csrf: string;
}

function PostForm(props: FormProps & { action: ClaimForm; title: string; children: ComponentChildren }) {
  const id = `form-${props.action}`;
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      <form method="post" action={`${claimPath(props.storeId, props.claim.id)}/${props.action}`} class="stack">
        <Hidden values={{ csrf: props.csrf, idempotencyKey: newFormKey() }} />
        {props.children}
      </form>
    </section>
  );
}

/** Per item a resolution, quantity and amount; "Preview" asks the API what it would issue, "Approve" does it. */
export function ApproveForm(props: FormProps & { choices: ItemChoice[] }) {
  const { claim, storeId } = props;
  return (
    <PostForm {...props} action="approve" title="Approve">
      {claim.claimItems.map((item, i) => {
        const c = props.choices[i] ?? { resolution: 'REFUND', quantity: String(item.quantity), amount: '' };
        return (
          <fieldset class="item-choice">
            <legend>{itemName(item, i)}</legend>
            <SelectField
              id={`resolution_${i}`}
              label="Resolution"
              options={Object.entries(RESOLUTION_WORDS)}
              selected={c.resolution}
            />
            <Field
              id={`quantity_${i}`}
              label="Quantity"
              control={(d) => (
                <input {...d} name={`quantity_${i}`} type="text" inputMode="numeric" value={c.quantity} />
              )}
            />
            <Field
              id={`amount_${i}`}
              label="Amount"
              errorId="amount-help"
              control={(d) => <input {...d} name={`amount_${i}`} type="text" inputMode="decimal" value={c.amount} />}
            />
          </fieldset>
        );
      })}
      <p id="amount-help" class="muted">
        Amount in the order's currency; a store credit needs one. Preview shows the store credits before anything is
        issued.
      </p>
      <div class="actions">
        <button type="submit" formAction={`${claimPath(storeId, claim.id)}/preview`}>
          Preview
        </button>
        <button type="submit" class="primary">
          Approve
        </button>
      </div>
    </PostForm>
  );
}

export function DeclineForm(props: FormProps) {
  return (
    <PostForm {...props} action="decline" title="Decline">
      <SelectField id="reason" label="Reason" options={DENY_REASONS.map((r) => [r, DENY_REASON_WORDS[r]] as const)} />
      <Field
        id="details"
        label="Details"
        control={(d) => <textarea {...d} name="details" rows={3} maxLength={10_000} />}
      />
      <div class="actions">
        <button type="submit">Decline</button>
      </div>
    </PostForm>
  );
}

/** Only D22's allowed targets from the claim's state (approve and decline have their own forms). */
export function MoveForm(props: FormProps) {
  const targets = moveTargets(props.claim.claimState);
  if (targets.length === 0) return null;
  return (
    <PostForm {...props} action="move" title="Move">
      <SelectField id="claimState" label="New state" options={targets.map((s) => [s, STATE_WORDS[s]] as const)} />
      <div class="actions">
        <button type="submit">Move</button>
      </div>
    </PostForm>
  );
}

export function ReplyForm(props: FormProps) {
  return (
    <PostForm {...props} action="reply" title="Reply to the shopper">
      <Field
        id="message"
        label="Message"
        control={(d) => <textarea {...d} name="message" rows={4} required maxLength={10_000} />}
      />
      <div class="actions">
        <button type="submit" class="primary">
          Send reply
        </button>
      </div>
    </PostForm>
  );
}

/** Staff only (D51): never on the shopper's page, never in a webhook. */
export function NoteForm(props: FormProps) {
  return (
    <PostForm {...props} action="note" title="Staff note">
      <Field
        id="note"
        label="Note"
        hint="Only the store's staff and apps see notes; the shopper never does."
        control={(d) => <textarea {...d} name="note" rows={3} required maxLength={5000} />}
      />
      <div class="actions">
        <button type="submit">Add note</button>
      </div>
    </PostForm>
  );
}
