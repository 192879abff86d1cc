// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { type Client, unwrap } from '@protection-service/sdk';
import express, { type Request, Router } from 'express';
import { sendPage } from '../../html';
import { formKey, seeOther, withNotice } from '../forms';
import type { Dashboard, StorePage } from '../handlers';
import { claimPath, DASHBOARD_PATH } from '../paths';
import type { OwnFiles } from './evidence';
import { approveBody, declineBody, itemChoices, moveBody, noteBody, replyBody } from './forms';
import { loadClaimPage } from './load';
import { type ApprovalPreview, ClaimPage } from './page-views';

/** The claim page's route (D50), and its forms' under it. */
export const DASHBOARD_CLAIM_PATH = `${DASHBOARD_PATH}/stores/:storeId/claims/:claimId`;

/** Renders the claim page (D50) as read now, with a preview of an approval when the answer is one. */
async function renderClaim(
  dashboard: Dashboard,
  page: StorePage,
  status: number,
  preview?: ApprovalPreview,
): Promise<void> {
  const { req, res, session, store, api } = page;
  const data = await loadClaimPage(dashboard, page);
  const photos = req.method === 'GET' && req.query.photos === '1';
  const can = { manage: api.can('claim:manage'), update: api.can('claim:update', 'claim:manage') };
  sendPage(
    res,
    status,
    <ClaimPage
      session={session}
      store={store}
      data={data}
      can={can}
      photos={photos}
      notice={req.method === 'GET' ? req.query.notice : undefined}
      preview={preview}
    />,
    { imageSources: imageSources(dashboard, data.own, photos) },
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

type Act = (client: Client, claimId: string, body: Record<string, unknown>, key: KeyHeader) => Promise<Answer>;
type Answer = { status: number; body: unknown; headers: Headers };
type KeyHeader = { 'idempotency-key'?: string };

/** What each form asks of the API (D22, D25, D51), with the form's own idempotency key (D33). */
const ACTS: Record<'decline' | 'move' | 'reply' | 'note', Act> = {
  decline: (client, claimId, body, headers) =>
    client.claims.deny({ params: { claimId }, headers, body: declineBody(body) }),
  move: (client, claimId, body, headers) =>
    client.claims.transition({ params: { claimId }, headers, body: moveBody(body) }),
  reply: (client, claimId, body, headers) =>
    client.claims.postMessage({ params: { claimId }, headers, body: replyBody(body) }),
  note: (client, claimId, body, headers) =>
    client.claims.addNote({ params: { claimId }, headers, body: noteBody(body) }),
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
      await renderClaim(dashboard, page, 200, { result: unwrap(res).data, choices });
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
