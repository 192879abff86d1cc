// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { Router } from 'express';
import { sendPage } from '../../html';
import type { Dashboard } from '../handlers';
import { DASHBOARD_PATH } from '../paths';
import { loadAnalytics, presetOf } from './load';
import { AnalyticsPage } from './views';

export const ANALYTICS_PATH = `${DASHBOARD_PATH}/stores/:storeId/analytics`;

/** The analytics page (D52): the period the query names, its figures read through the API. */
export function analyticsPages(dashboard: Dashboard): Router {
  const router = Router();
  router.get(
    ANALYTICS_PATH,
    dashboard.page(async ({ req, res, session, store, api }) => {
      const preset = presetOf(req.query.days);
      const data = await loadAnalytics(api, preset);
      sendPage(res, 200, <AnalyticsPage session={session} store={store} preset={preset} data={data} />);
    }),
  );
  return router;
}
