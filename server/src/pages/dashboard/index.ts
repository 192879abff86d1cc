import { Router } from 'express';
import { claimPages, DASHBOARD_CLAIM_PATH } from './claim';
import { CLAIM_FORMS } from './claim-forms';
import { Dashboard } from './handlers';
import { DASHBOARD_PATH, DASHBOARD_SIGN_IN_PATH, DASHBOARD_SIGN_OUT_PATH } from './paths';
import type { DashboardPort } from './port';
import { storePages } from './stores';

/**
 * The merchant dashboard (D50): pages rendered on the server that act on a store only through
 * the public API, with the signed-in person's staff token (D49), through the SDK.
 */
export const DASHBOARD_ROUTES = [
  { method: 'GET', path: DASHBOARD_SIGN_IN_PATH },
  { method: 'POST', path: DASHBOARD_SIGN_IN_PATH },
  { method: 'POST', path: DASHBOARD_SIGN_OUT_PATH },
  { method: 'GET', path: DASHBOARD_PATH },
  { method: 'GET', path: `${DASHBOARD_PATH}/stores/:storeId` },
  { method: 'GET', path: DASHBOARD_CLAIM_PATH },
  ...CLAIM_FORMS.map((form) => ({ method: 'POST', path: `${DASHBOARD_CLAIM_PATH}/${form}` }) as const),
] as const;

export function dashboardPages(port: DashboardPort): Router {
  const dashboard = new Dashboard(port);
  const router = Router();
  router.use(storePages(dashboard));
  router.use(claimPages(dashboard));
  return router;
}

export { DASHBOARD_PATH } from './paths';
export type { DashboardPort } from './port';
