// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { type Client, type TApprovePreview, type TClaim, type TClaimListNode, unwrap } from '@protection-service/sdk';
import express, { type Request, Router } from 'express';
import { sendPage } from '../../html';
import { field, formKey, seeOther, withNotice } from '../forms';
import { DashboardLayout, Notice } from '../frame';
import type { Dashboard, StorePage } from '../handlers';
import { claimPath, DASHBOARD_PATH } from '../paths';
import { type OwnFiles, readOwnFiles, readReusedPhotoClaims } from './evidence';
import { ApproveForm, DeclineForm, MoveForm, NoteForm, ReplyForm } from './form-views';
import {
  approveBody,
  canApprove,
  canDecline,
  defaultChoices,
  type ItemChoice,
  itemChoices,
  moveTargets,
} from './forms';
import { Risk } from './risk-views';
import { concernedFulfillments, readTracking, Tracking } from './tracking-views';
import {
  ClaimFacts,
  type ClaimView,
  Conversation,
  Fulfillments,
  Items,
  OrderAndShopper,
  OtherClaims,
  PreviewResult,
  Resolutions,
  Timeline,
} from './views';

/** The claim page's route (D50), and its forms' under it. */
export const DASHBOARD_CLAIM_PATH = `${DASHBOARD_PATH}/stores/:storeId/claims/:claimId`;

/** Reads the claim and all around it through the API (D50, D51), in parallel. */
async function readClaim(api: StorePage['api'], claimId: string): Promise<ClaimView> {
  const { client } = api;
  const claim = unwrap(await client.claims.get({ params: { claimId } }));
  const others = (nodes: TClaimListNode[]) => nodes.filter((c) => c.id !== claim.id);
  const [timeline, orderClaims, emailClaims, shipping] = await Promise.all([
    client.claims.getTimeline({ params: { claimId } }).then((r) => unwrap(r).data),
    client.claims
      .list({ query: { sourceOrderId: claim.sourceOrderId, first: 50, order: 'desc' } })
      .then((r) => others(unwrap(r).edges.map((e) => e.node))),
    claim.authorEmail
      ? client.claims
          .list({ query: { q: claim.authorEmail, first: 50, order: 'desc' } })
          .then((r) => others(unwrap(r).edges.map((e) => e.node)))
      : Promise.resolve([]),
    readShipping(api, claim),
  ]);
  return { claim, timeline, orderClaims, emailClaims, ...shipping };
}

/** The order's fulfillments, then the packages of those the claim is about (D54). */
async function readShipping(
  api: StorePage['api'],
  claim: TClaim,
): Promise<Pick<ClaimView, 'fulfillments' | 'tracking'>> {
  const fulfillments = await readFulfillments(api, claim.sourceOrderId);
  if (!fulfillments) return { fulfillments, tracking: undefined };
  return {
    fulfillments,
    tracking: await readTracking(api, claim.sourceOrderId, concernedFulfillments(claim, fulfillments)),
  };
}

/** The order's fulfillments, none when the order is gone, undefined when the role cannot read orders. */
async function readFulfillments(api: StorePage['api'], sourceOrderId: string) {
  if (!api.can('order:read', 'order:update')) return undefined;
  const res = await api.client.orders.listFulfillments({ params: { sourceOrderId } });
  return res.status === 404 ? [] : unwrap(res);
}

/** What a page render may add: the preview of an approval, with the fields it was made of. */
interface Extra {
  preview?: { result: TApprovePreview; choices: ItemChoice[] };
}

/** Renders the claim page (D50); only the forms the role can use and the claim's state allows. */
async function renderClaim(dashboard: Dashboard, page: StorePage, status: number, extra: Extra = {}): Promise<void> {
  const { req, res, session, store, api } = page;
  const view = await readClaim(api, String(req.params.claimId));
  const { claim } = view;
  const reused = await readReusedPhotoClaims(api, claim);
  const own = await readOwnFiles(dashboard, page, [claim, ...reused]);
  const photos = req.method === 'GET' && req.query.photos === '1';
  const manage = api.can('claim:manage');
  const update = api.can('claim:update', 'claim:manage');
  const form = { storeId: store.id, claim, csrf: session.csrf };
  const choices = extra.preview?.choices ?? defaultChoices(claim.claimItems, claim.resolutionRequested);
  sendPage(
    res,
    status,
    <DashboardLayout title={`Claim ${claim.id}`} session={session} store={store} section="claims">
      <h1>Claim on order {claim.sourceOrderNumber}</h1>
      <p class="muted">Claim {claim.id}</p>
      <Notice code={req.method === 'GET' ? req.query.notice : undefined} />
      <Risk storeId={store.id} claim={claim} reused={reused} own={own} />
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
      {extra.preview ? <PreviewResult preview={extra.preview.result} claim={claim} /> : null}
      <div class="grid forms">
        {manage && canApprove(claim.claimState) ? <ApproveForm {...form} choices={choices} /> : null}
        {manage && canDecline(claim.claimState) ? <DeclineForm {...form} /> : null}
        {manage && moveTargets(claim.claimState).length > 0 ? <MoveForm {...form} /> : null}
      </div>
      <ClaimContext view={view} storeId={store.id} />
      <h2>Conversation</h2>
      <Conversation claim={claim} store={store} own={own} photos={photos} />
      <div class="grid forms">
        {update ? <ReplyForm {...form} /> : null}
        {update ? <NoteForm {...form} /> : null}
      </div>
      <h2>Timeline</h2>
      <Timeline entries={view.timeline} />
    </DashboardLayout>,
    { imageSources: imageSources(dashboard, own, photos) },
  );
}

/**
 * Where the page's images may come from (D56): the service's own file links (its public
 * origin, `http:` too in a development install) whenever the claim names one, and `https:`
 * addresses once the person asked to see the photos put elsewhere.
 */
function imageSources(dashboard: Dashboard, own: OwnFiles, photos: boolean): string[] {
  return [...(own.size > 0 ? [dashboard.port.publicOrigin] : []), ...(photos ? ['https:'] : [])];
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

type Act = (client: Client, claimId: string, body: Record<string, unknown>, key: KeyHeader) => Promise<Answer>;
type Answer = { status: number; body: unknown; headers: Headers };
type KeyHeader = { 'idempotency-key'?: string };

/** What each form asks of the API (D22, D25, D51), with the form's own idempotency key (D33). */
const ACTS: Record<'decline' | 'move' | 'reply' | 'note', Act> = {
  decline: (client, claimId, body, headers) =>
    client.claims.deny({
      params: { claimId },
      headers,
      body: { reason: field(body, 'reason') as never, details: field(body, 'details') || null },
    }),
  move: (client, claimId, body, headers) =>
    client.claims.transition({
      params: { claimId },
      headers,
      body: { claimState: field(body, 'claimState') as never },
    }),
  reply: (client, claimId, body, headers) =>
    client.claims.postMessage({
      params: { claimId },
      headers,
      body: { message: field(body, 'message'), senderType: 'brand' },
    }),
  note: (client, claimId, body, headers) =>
    client.claims.addNote({ params: { claimId }, headers, body: { note: field(body, 'note') } }),
};

const back = (req: Request) => claimPath(String(req.params.storeId), String(req.params.claimId));

/** After a form: back to the claim, saying whether it was done now or had been done already (D33, D50). */
function done(page: StorePage, answer: Answer): void {
  unwrap(answer);
  const replayed = answer.headers.get('idempotent-replayed') === 'true';
  seeOther(page.res, withNotice(back(page.req), replayed ? 'replayed' : 'done'));
}

/** The claim page (D50) and its forms: approve with a preview, decline, move, reply, note. */
export function claimPages(dashboard: Dashboard): Router {
  const router = Router();
  // An approve form has three fields an item, up to approve's 100 resolutions.
  const form = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 400 });
  router.get(
    DASHBOARD_CLAIM_PATH,
    dashboard.page((page) => renderClaim(dashboard, page, 200)),
  );
  router.post(
    `${DASHBOARD_CLAIM_PATH}/preview`,
    form,
    dashboard.form(back, async (page) => {
      const claimId = String(page.req.params.claimId);
      const claim = unwrap(await page.api.client.claims.get({ params: { claimId } }));
      const choices = itemChoices(page.body, claim.claimItems);
      // A preview changes nothing (D51): no idempotency key, and the page itself is the answer.
      const res = await page.api.client.claims.previewApproval({
        params: { claimId },
        body: approveBody(choices, claim.claimItems),
      });
      await renderClaim(dashboard, page, 200, { preview: { result: unwrap(res).data, choices } });
    }),
  );
  router.post(
    `${DASHBOARD_CLAIM_PATH}/approve`,
    form,
    dashboard.form(back, async (page) => {
      const claimId = String(page.req.params.claimId);
      const claim = unwrap(await page.api.client.claims.get({ params: { claimId } }));
      const body = approveBody(itemChoices(page.body, claim.claimItems), claim.claimItems);
      const key = formKey(page.body);
      const headers = key ? { 'idempotency-key': key } : {};
      done(page, await page.api.client.claims.approve({ params: { claimId }, headers, body }));
    }),
  );
  for (const [name, act] of Object.entries(ACTS)) {
    router.post(
      `${DASHBOARD_CLAIM_PATH}/${name}`,
      form,
      dashboard.form(back, async (page) => {
        const key = formKey(page.body);
        const headers = key ? { 'idempotency-key': key } : {};
        done(page, await act(page.api.client, String(page.req.params.claimId), page.body, headers));
      }),
    );
  }
  return router;
}
