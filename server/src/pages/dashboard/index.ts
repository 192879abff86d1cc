import { Router } from 'express';
import { appPages } from './apps';
import { Dashboard } from './handlers';
import { orderPages } from './orders';
import { DASHBOARD_PATH, DASHBOARD_SIGN_IN_PATH, DASHBOARD_SIGN_OUT_PATH } from './paths';
import type { DashboardPort } from './port';
import { settingsPages } from './settings';
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
  { method: 'GET', path: `${DASHBOARD_PATH}/stores/:storeId/orders` },
  { method: 'GET', path: `${DASHBOARD_PATH}/stores/:storeId/orders/:sourceOrderId` },
  { method: 'POST', path: `${DASHBOARD_PATH}/stores/:storeId/orders/:sourceOrderId/claims` },
  { method: 'GET', path: `${DASHBOARD_PATH}/stores/:storeId/settings` },
  { method: 'POST', path: `${DASHBOARD_PATH}/stores/:storeId/settings` },
  { method: 'GET', path: `${DASHBOARD_PATH}/stores/:storeId/apps` },
  { method: 'POST', path: `${DASHBOARD_PATH}/stores/:storeId/apps/:clientId/uninstall` },
] as const;

export function dashboardPages(port: DashboardPort): Router {
  const dashboard = new Dashboard(port);
  const router = Router();
  router.use(storePages(dashboard));
  router.use(orderPages(dashboard));
  router.use(settingsPages(dashboard));
  router.use(appPages(dashboard));
  return router;
}

export { DASHBOARD_PATH } from './paths';
export type { DashboardPort } from './port';
