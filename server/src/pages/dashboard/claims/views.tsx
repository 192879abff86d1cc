// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type {
  TApprovePreview,
  TClaim,
  TClaimItem,
  TClaimListNode,
  TFulfillment,
  TTimelineActor,
  TTimelineEntry,
} from '@protection-service/sdk';
import { DataTable } from '../data-table';
import { claimPath, orderPath } from '../paths';
import type { MemberStore } from '../port';
import { DENY_REASON_WORDS, RESOLUTION_WORDS, STATE_WORDS, StateLabel, shortDate, TYPE_WORDS } from '../words';
import { evidenceUrls, type OwnFiles } from './evidence';
import { Evidence } from './evidence-views';

const CATEGORY_WORDS: Record<TClaim['claimCategory'], string> = { SHIPPING: 'Shipping', WARRANTY: 'Warranty' };
const CHANNEL_WORDS: Record<TClaim['salesChannel'], string> = { ONLINE: 'Online', IN_STORE: 'In store' };

/** The claim's facts: state in words, type, category, channel, dates, and why it was declined. */
export function ClaimFacts(props: { claim: TClaim }) {
  const c = props.claim;
  return (
    <dl class="facts">
      <dt>State</dt>
      <dd>
        <StateLabel state={c.claimState} />
      </dd>
      <dt>Type</dt>
      <dd>{c.claimType ? TYPE_WORDS[c.claimType] : 'Not given'}</dd>
      <dt>Category</dt>
      <dd>{CATEGORY_WORDS[c.claimCategory] ?? c.claimCategory}</dd>
      <dt>Sales channel</dt>
      <dd>{CHANNEL_WORDS[c.salesChannel] ?? c.salesChannel}</dd>
      <dt>Shopper asked for</dt>
      <dd>{c.resolutionRequested ? RESOLUTION_WORDS[c.resolutionRequested] : 'Nothing in particular'}</dd>
      <dt>Filed</dt>
      <dd>{shortDate(c.createdAt)}</dd>
      <dt>Last change</dt>
      <dd>{shortDate(c.updatedAt)}</dd>
      {c.denyReason ? (
        <>
          <dt>Declined because</dt>
          <dd>{DENY_REASON_WORDS[c.denyReason] ?? c.denyReason}</dd>
          <dt>Decline details</dt>
          <dd class="text">{c.denyDetails ?? 'None given'}</dd>
        </>
      ) : null}
    </dl>
  );
}

/** The order (a link to its page) and the shopper. */
export function OrderAndShopper(props: { storeId: string; claim: TClaim }) {
  const c = props.claim;
  return (
    <dl class="facts">
      <dt>Order</dt>
      <dd>
        <a href={orderPath(props.storeId, c.sourceOrderId)}>Order {c.sourceOrderNumber}</a>
      </dd>
      <dt>Shopper</dt>
      <dd>{c.authorName ?? 'No name given'}</dd>
      <dt>E-mail</dt>
      <dd>{c.authorEmail ?? 'No e-mail given'}</dd>
      {c.claimDescription ? (
        <>
          <dt>Description</dt>
          <dd class="text">{c.claimDescription}</dd>
        </>
      ) : null}
    </dl>
  );
}

/** An item's name as the order gave it, else its line item id. */
export function itemName(item: TClaimItem, index: number): string {
  return item.name ?? item.itemId ?? `Item ${index + 1}`;
}

/** The claimed items with their issue, quantity, the shopper's words and photos (D56). */
export function Items(props: { storeId: string; claim: TClaim; own: OwnFiles; photos: boolean }) {
  const { claim, own } = props;
  return (
    <>
      <DataTable
        label="Claimed items"
        caption="The items the shopper claimed"
        quietCaption
        rows={claim.claimItems.map((item, i) => ({ item, name: itemName(item, i) }))}
        columns={[
          { head: 'Item', top: true, cell: (r) => r.name },
          { head: 'Issue', top: true, cell: (r) => (r.item.issueType ? TYPE_WORDS[r.item.issueType] : 'Not given') },
          { head: 'Quantity', cell: (r) => r.item.quantity },
          { head: 'Details', class: 'text', cell: (r) => r.item.details ?? '' },
          {
            head: 'Photos',
            cell: (r) => <Evidence urls={r.item.images} label={r.name} own={own} show={props.photos} />,
          },
        ]}
      />
      <ShowPhotos storeId={props.storeId} claim={claim} own={own} shown={props.photos} />
    </>
  );
}

/**
 * "Show photos" while the claim names addresses other than the service's own files (D56):
 * loading them tells their host the claim was opened, so they wait for the person to ask.
 */
function ShowPhotos(props: { storeId: string; claim: TClaim; own: OwnFiles; shown: boolean }) {
  const { claim, own } = props;
  if (props.shown || !evidenceUrls(claim).some((url) => !own.has(url))) return null;
  return (
    <p>
      <a href={`${claimPath(props.storeId, claim.id)}?photos=1`}>Show photos</a>{' '}
      <span class="muted">(loads those the shopper put elsewhere from where they are)</span>
    </p>
  );
}

/** What an approval created: its resolutions and store credits. */
export function Resolutions(props: { claim: TClaim }) {
  const { claimResolutions: resolutions, claimStoreCredits: credits } = props.claim;
  if (resolutions.length === 0 && credits.length === 0) return null;
  return (
    <section aria-labelledby="resolutions">
      <h2 id="resolutions">Resolutions</h2>
      <ul>
        {resolutions.map((r) => (
          <li>
            {RESOLUTION_WORDS[r.resolutionType]}
            {r.paidValue === null ? '' : `: ${r.paidValue} ${r.paidCurrency ?? ''}`}
            {r.resolutionDetails ? ` (${r.resolutionDetails})` : ''}
          </li>
        ))}
        {credits.map((s) => (
          <li>
            Store credit <code>{s.code}</code>: {s.creditValue} + {s.bonusValue} bonus = {s.totalValue}{' '}
            {s.creditCurrency ?? ''}, e-mail {s.emailStatus.toLowerCase().replace('_', ' ')}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The order's fulfillments and their tracking numbers. */
export function Fulfillments(props: { fulfillments: TFulfillment[] | undefined }) {
  const { fulfillments } = props;
  if (fulfillments === undefined) return <p>Your role cannot read orders.</p>;
  if (fulfillments.length === 0) return <p>The order has no fulfillment yet.</p>;
  return (
    <DataTable
      label="Fulfillments"
      caption="The order's fulfillments"
      quietCaption
      rows={fulfillments}
      columns={[
        { head: 'Fulfillment', top: true, cell: (f) => f.sourceFulfillmentId },
        {
          head: 'Status',
          top: true,
          cell: (f) => (f.cancelledAt ? `Cancelled ${shortDate(f.cancelledAt)}` : f.fulfillmentStatus.toLowerCase()),
        },
        { head: 'Carrier', cell: (f) => f.trackingCompany ?? '' },
        { head: 'Tracking numbers', cell: (f) => f.trackingNumber.join(', ') },
      ]}
    />
  );
}

/** Links to other claims (on the order, or by the e-mail). */
export function OtherClaims(props: { storeId: string; claims: TClaimListNode[]; none: string }) {
  if (props.claims.length === 0) return <p class="muted">{props.none}</p>;
  return (
    <ul>
      {props.claims.map((c) => (
        <li>
          <a href={claimPath(props.storeId, c.id)}>Claim {c.id}</a> on order {c.sourceOrderNumber},{' '}
          <StateLabel state={c.claimState} />, filed {shortDate(c.createdAt)}
        </li>
      ))}
    </ul>
  );
}

/** The messages between the shopper and the store, oldest first, with their photos (D56). */
export function Conversation(props: { claim: TClaim; store: MemberStore; own: OwnFiles; photos: boolean }) {
  const messages = props.claim.claimMessages;
  if (messages.length === 0) return <p class="muted">No message yet.</p>;
  return (
    <ol class="messages">
      {messages.map((m, i) => (
        <li class={m.senderType === 'brand' ? 'mine' : undefined}>
          <span class="from">
            {m.senderType === 'brand' ? `${props.store.name} (store)` : 'Shopper'}
            {m.authorName ? `: ${m.authorName}` : ''}
          </span>
          <span class="body">{m.message}</span>
          {m.medias.length > 0 ? (
            <Evidence urls={m.medias} label={`Message ${i + 1}`} own={props.own} show={props.photos} />
          ) : null}
        </li>
      ))}
    </ol>
  );
}

function actorName(actor: TTimelineActor): string {
  if (actor.name) return actor.name;
  return { user: 'A staff member', app: 'An app', shopper: 'The shopper', system: 'The service' }[actor.type];
}

/** One timeline entry in words. */
function entryWords(e: TTimelineEntry): { what: string; text?: string } {
  switch (e.type) {
    case 'state_change':
      return { what: `Moved from ${STATE_WORDS[e.from]} to ${STATE_WORDS[e.to]}`, text: e.note ?? undefined };
    case 'resolution':
      return {
        what: `Resolution: ${RESOLUTION_WORDS[e.resolutionType]}${e.quantity ? ` × ${e.quantity}` : ''}${
          e.paidValue === null ? '' : `, ${e.paidValue} ${e.paidCurrency ?? ''}`
        }`,
        text: e.details ?? undefined,
      };
    case 'store_credit':
      return {
        what: `Store credit ${e.code}: ${e.creditValue} + ${e.bonusValue} bonus = ${e.totalValue} ${e.currency ?? ''}, e-mail ${e.emailStatus.toLowerCase().replace('_', ' ')}`,
      };
    case 'message':
      return { what: e.senderType === 'brand' ? 'Reply to the shopper' : 'Message from the shopper', text: e.message };
    case 'note':
      return { what: 'Staff note', text: e.note };
  }
}

/** Everything that happened to the claim, oldest first, with who did it (D51). */
export function Timeline(props: { entries: TTimelineEntry[] }) {
  if (props.entries.length === 0) return <p class="muted">Nothing has happened yet.</p>;
  return (
    <ol class="timeline">
      {props.entries.map((e) => {
        const { what, text } = entryWords(e);
        return (
          <li>
            <span class="muted">{shortDate(e.at)}</span> <strong>{actorName(e.actor)}</strong>: {what}
            {text ? <span class="body text">{text}</span> : null}
          </li>
        );
      })}
    </ol>
  );
}

/** What approving would issue (D51): the store credits, before anything is issued. */
export function PreviewResult(props: { preview: TApprovePreview; claim: TClaim }) {
  const credits = props.preview.storeCredits;
  return (
    <section class="card preview" aria-labelledby="preview">
      <h2 id="preview">Preview</h2>
      {credits.length === 0 ? (
        <p>Approving like this issues no store credit.</p>
      ) : (
        <DataTable
          label="Store credits"
          caption="Store credits approving would issue (nothing is issued yet)"
          rows={credits}
          columns={[
            {
              head: 'Item',
              top: true,
              cell: (s) => {
                const item = props.claim.claimItems[s.resolution];
                return item ? itemName(item, s.resolution) : `Resolution ${s.resolution + 1}`;
              },
            },
            { head: 'Value', cell: (s) => s.creditValue },
            { head: 'Bonus', cell: (s) => s.bonusValue },
            { head: 'Total', top: true, cell: (s) => s.totalValue },
            { head: 'Currency', top: true, cell: (s) => s.currency },
          ]}
        />
      )}
    </section>
  );
}
