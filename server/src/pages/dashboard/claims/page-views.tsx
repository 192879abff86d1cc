// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TApprovePreview } from '@protection-service/sdk';
import { DashboardLayout, Notice } from '../frame';
import type { MemberStore } from '../port';
import type { SignedIn } from '../staff-api';
import { ApproveForm, DeclineForm, MoveForm, NoteForm, ReplyForm } from './form-views';
import { canApprove, canDecline, defaultChoices, type ItemChoice, moveTargets } from './forms';
import type { ClaimPageData, ClaimView } from './load';
import { Risk } from './risk-views';
import { Tracking } from './tracking-views';
import {
  ClaimFacts,
  Conversation,
  Fulfillments,
  Items,
  OrderAndShopper,
  OtherClaims,
  PreviewResult,
  Resolutions,
  Timeline,
} from './views';

/** The preview of an approval a page shows, with the fields it was made of (D51). */
export interface ApprovalPreview {
  result: TApprovePreview;
  choices: ItemChoice[];
}

/** What the signed-in person's role lets them do on a claim (D53): decide it, or write to it. */
export interface ClaimAbilities {
  manage: boolean;
  update: boolean;
}

/** The claim page (D50); only the forms the role can use and the claim's state allows. */
export function ClaimPage(props: {
  session: SignedIn;
  store: MemberStore;
  data: ClaimPageData;
  can: ClaimAbilities;
  photos: boolean;
  notice: unknown;
  preview: ApprovalPreview | undefined;
}) {
  const { session, store, data, can, photos, preview } = props;
  const { claim, own } = data;
  const form = { storeId: store.id, claim, csrf: session.csrf };
  const choices = preview?.choices ?? defaultChoices(claim.claimItems, claim.resolutionRequested);
  return (
    <DashboardLayout title={`Claim ${claim.id}`} session={session} store={store} section="claims">
      <h1>Claim on order {claim.sourceOrderNumber}</h1>
      <p class="muted">Claim {claim.id}</p>
      <Notice code={props.notice} />
      <Risk storeId={store.id} claim={claim} reused={data.reused} own={own} />
      <div class="grid">
        <section class="card" aria-labelledby="claim">
          <h2 id="claim">Claim</h2>
          <ClaimFacts claim={claim} />
        </section>
        <section class="card" aria-labelledby="order">
          <h2 id="order">Order and shopper</h2>
          <OrderAndShopper storeId={store.id} claim={claim} />
        </section>
      </div>
      <h2>Items</h2>
      <Items storeId={store.id} claim={claim} own={own} photos={photos} />
      <Resolutions claim={claim} />
      {preview ? <PreviewResult preview={preview.result} claim={claim} /> : null}
      <div class="grid forms">
        {can.manage && canApprove(claim.claimState) ? <ApproveForm {...form} choices={choices} /> : null}
        {can.manage && canDecline(claim.claimState) ? <DeclineForm {...form} /> : null}
        {can.manage && moveTargets(claim.claimState).length > 0 ? <MoveForm {...form} /> : null}
      </div>
      <ClaimContext view={data} storeId={store.id} />
      <h2>Conversation</h2>
      <Conversation claim={claim} store={store} own={own} photos={photos} />
      <div class="grid forms">
        {can.update ? <ReplyForm {...form} /> : null}
        {can.update ? <NoteForm {...form} /> : null}
      </div>
      <h2>Timeline</h2>
      <Timeline entries={data.timeline} />
    </DashboardLayout>
  );
}

/** Fulfillments, and the shopper's and order's other claims. */
function ClaimContext(props: { view: ClaimView; storeId: string }) {
  const { view, storeId } = props;
  return (
    <>
      <h2>Fulfillments and tracking</h2>
      <Fulfillments fulfillments={view.fulfillments} />
      <Tracking tracking={view.tracking} storeId={storeId} claimId={view.claim.id} />
      <h2>Other claims on this order</h2>
      <OtherClaims storeId={storeId} claims={view.orderClaims} none="None." />
      <h2>Other claims by this e-mail</h2>
      <OtherClaims storeId={storeId} claims={view.emailClaims} none="None." />
    </>
  );
}
