import { unwrap } from '@protection-service/sdk';
import express, { type Request, Router } from 'express';
import { seeOther, withNotice } from '../forms';
import type { Dashboard, StoreForm, StorePage } from '../handlers';
import { DASHBOARD_PATH, storePath } from '../paths';
import { rulesBody, sourceBody } from './forms';
import { inputRefused, type TrackingExtras, userApi } from './load';

const SETTINGS = `${DASHBOARD_PATH}/stores/:storeId/settings`;
const RULES = `${SETTINGS}/tracking`;
const SOURCES = `${SETTINGS}/tracking-sources`;
const REMOVE = `${SOURCES}/:sourceId/remove`;

/** The tracking section's forms, for the dashboard's route table. */
export const TRACKING_FORM_PATHS = [RULES, SOURCES, REMOVE] as const;

/** How a tracking form answers with the whole settings page (a refusal, or a new source's secret). */
export type SendSettings = (page: StorePage, status: number, tracking: TrackingExtras) => Promise<void>;

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
  const { res, store, body } = page;
  const typed = rulesBody(body);
  const answer = await userApi(dashboard, page).tracking.updateSettings({ params: { storeId: store.id }, body: typed });
  const refusal = inputRefused(answer);
  if (refusal !== undefined) return send(page, 400, { typed, rulesError: refusal });
  seeOther(res, withNotice(storePath(store.id, 'settings'), 'trackingSaved'));
}

/**
 * A new source answers with the page itself, never a redirect: its secret is in no address
 * and in no store of the dashboard's, so reading the page again never shows it (D54).
 */
async function addSource(dashboard: Dashboard, page: StoreForm, send: SendSettings): Promise<void> {
  const create = sourceBody(page.body);
  const answer = await userApi(dashboard, page).tracking.createSource({
    params: { storeId: page.store.id },
    body: create,
  });
  const refusal = inputRefused(answer);
  if (refusal !== undefined) return send(page, 400, { sourceError: refusal, provider: create.provider });
  await send(page, 200, { created: unwrap(answer).data });
}

async function removeSource(dashboard: Dashboard, page: StoreForm): Promise<void> {
  const { req, res, store } = page;
  const answer = await userApi(dashboard, page).tracking.removeSource({
    params: { storeId: store.id, sourceId: String(req.params.sourceId) },
  });
  const settings = storePath(store.id, 'settings');
  // Removed already (a second click, or someone else): said, not an error page.
  if (answer.status === 404) return seeOther(res, withNotice(settings, 'sourceGone'));
  unwrap(answer);
  seeOther(res, withNotice(settings, 'sourceRemoved'));
}
