// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { ProtectionApiError, unwrap } from '@protection-service/sdk';
import express, { Router } from 'express';
import { sendPage } from '../../html';
import { seeOther, withNotice } from '../forms';
import type { Dashboard } from '../handlers';
import { DASHBOARD_PATH, storePath } from '../paths';
import { loadApps } from './load';
import { AppsPage } from './views';

const APPS = `${DASHBOARD_PATH}/stores/:storeId/apps`;
const UNINSTALL = `${APPS}/:clientId/uninstall`;

/**
 * The apps installed on a store (D14, D50), with what each may do in plain words, and
 * "Uninstall" for an owner or admin: the page the consent screen names. Installations are the
 * person's own routes (dashboard token), which check the role themselves (D49).
 */
export function appPages(dashboard: Dashboard): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 10 });

  router.get(
    APPS,
    dashboard.page(async ({ req, res, session, store }) => {
      const installed = await loadApps(dashboard, { req, session, store });
      sendPage(res, 200, <AppsPage session={session} store={store} installed={installed} notice={req.query.notice} />);
    }),
  );

  router.post(
    UNINSTALL,
    form,
    dashboard.form(
      (req) => storePath(String(req.params.storeId), 'apps'),
      async ({ req, res, session, store }) => {
        const back = storePath(store.id, 'apps');
        const user = dashboard.staff.asUser(req, session);
        const answer = await user.stores.uninstall({
          params: { storeId: store.id, clientId: String(req.params.clientId) },
        });
        try {
          unwrap(answer);
        } catch (err) {
          // Uninstalled already (a second click, or someone else): said, not an error page.
          if (err instanceof ProtectionApiError && err.status === 404)
            return seeOther(res, withNotice(back, 'appGone'));
          throw err;
        }
        seeOther(res, withNotice(back, 'uninstalled'));
      },
    ),
  );
  return router;
}
