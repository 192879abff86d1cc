// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { TMerchantSettingsUpdate } from '@protection-service/sdk';
import express, { Router } from 'express';
import { sendPage } from '../../html';
import { seeOther, withNotice } from '../forms';
import type { Dashboard, StorePage } from '../handlers';
import { DASHBOARD_PATH, storePath } from '../paths';
import { settingsBody } from './forms';
import { inputRefused, loadSettings, type TrackingExtras, userApi } from './load';
import { trackingForms } from './tracking-routes';
import { SettingsPage } from './views';

const SETTINGS = `${DASHBOARD_PATH}/stores/:storeId/settings`;

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
        const change = settingsBody(page.body);
        const params = { storeId: page.store.id };
        const refusal = inputRefused(await userApi(dashboard, page).stores.updateSettings({ params, body: change }));
        if (refusal !== undefined) return sendSettings(dashboard, page, 400, { typed: change, error: refusal });
        seeOther(page.res, withNotice(storePath(page.store.id, 'settings'), 'settingsSaved'));
      },
    ),
  );
  router.use(trackingForms(dashboard, (page, status, tracking) => sendSettings(dashboard, page, status, { tracking })));
  return router;
}

/** The page as read now, with what a form's answer adds (what was typed and refused, a source just made). */
async function sendSettings(
  dashboard: Dashboard,
  page: StorePage,
  status: number,
  extras: { typed?: TMerchantSettingsUpdate; error?: string; tracking?: TrackingExtras } = {},
): Promise<void> {
  const { req, res, session, store } = page;
  const { settings, tracking } = await loadSettings(dashboard, page, extras.tracking);
  sendPage(
    res,
    status,
    <SettingsPage
      session={session}
      store={store}
      settings={settings}
      typed={extras.typed}
      error={extras.error}
      tracking={tracking}
      notice={req.query.notice}
    />,
  );
}
