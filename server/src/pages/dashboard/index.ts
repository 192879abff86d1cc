import { Router } from 'express';
import { ANALYTICS_PATH, analyticsPages } from './analytics/routes';
import { appPages } from './apps/routes';
import { AUDIT_PATH, auditPages } from './audit/routes';
import { CLAIM_FORMS } from './claims/forms';
import { claimPages, DASHBOARD_CLAIM_PATH } from './claims/routes';
import { Dashboard } from './handlers';
import { orderPages } from './orders/routes';
import { DASHBOARD_PATH, DASHBOARD_SIGN_IN_PATH, DASHBOARD_SIGN_OUT_PATH } from './paths';
import type { DashboardPort } from './port';
import { EXPORT_PATH } from './queue/export';
import { BULK_PATH, QUEUE_PATH, queuePages } from './queue/routes';
import { settingsPages } from './settings/routes';
import { TRACKING_FORM_PATHS } from './settings/tracking-routes';
import { STORE_HOME_PATH, storePages } from './stores/routes';
import { TEAM_FORMS, TEAM_PATH, teamPages } from './team/routes';

/**
 * The merchant dashboard (D50): pages rendered on the server that act on a store only through
 * the public API, with the signed-in person's staff token (D49), through the SDK.
 */
export const DASHBOARD_ROUTES = [
  { method: 'GET', path: DASHBOARD_SIGN_IN_PATH },
  { method: 'POST', path: DASHBOARD_SIGN_IN_PATH },
  { method: 'POST', path: DASHBOARD_SIGN_OUT_PATH },
  { method: 'GET', path: DASHBOARD_PATH },
  { method: 'GET', path: STORE_HOME_PATH },
  { method: 'GET', path: QUEUE_PATH },
  { method: 'POST', path: BULK_PATH },
  { method: 'GET', path: EXPORT_PATH },
  { method: 'GET', path: DASHBOARD_CLAIM_PATH },
  ...CLAIM_FORMS.map((form) => ({ method: 'POST', path: `${DASHBOARD_CLAIM_PATH}/${form}` }) as const),
  { method: 'GET', path: `${DASHBOARD_PATH}/stores/:storeId/orders` },
  { method: 'GET', path: `${DASHBOARD_PATH}/stores/:storeId/orders/:sourceOrderId` },
  { method: 'POST', path: `${DASHBOARD_PATH}/stores/:storeId/orders/:sourceOrderId/claims` },
  { method: 'GET', path: `${DASHBOARD_PATH}/stores/:storeId/settings` },
  { method: 'POST', path: `${DASHBOARD_PATH}/stores/:storeId/settings` },
  // D54: the settings page's tracking forms (mounted with the settings page, whose answers they render).
  ...TRACKING_FORM_PATHS.map((path) => ({ method: 'POST', path }) as const),
  { method: 'GET', path: `${DASHBOARD_PATH}/stores/:storeId/apps` },
  { method: 'GET', path: ANALYTICS_PATH },
  { method: 'POST', path: `${DASHBOARD_PATH}/stores/:storeId/apps/:clientId/uninstall` },
  { method: 'GET', path: TEAM_PATH },
  ...TEAM_FORMS.map((form) => ({ method: 'POST', path: `${TEAM_PATH}/${form}` }) as const),
  { method: 'GET', path: AUDIT_PATH },
] as const;

export function dashboardPages(port: DashboardPort): Router {
  const dashboard = new Dashboard(port);
  const router = Router();
  router.use(storePages(dashboard));
  // Before the claim page: `…/claims/export` is the export, never a claim named `export`.
  router.use(queuePages(dashboard));
  router.use(claimPages(dashboard));
  router.use(orderPages(dashboard));
  router.use(settingsPages(dashboard));
  router.use(appPages(dashboard));
  router.use(teamPages(dashboard));
  router.use(auditPages(dashboard));
  router.use(analyticsPages(dashboard));
  return router;
}

export { DASHBOARD_PATH } from './paths';
export type { DashboardPort } from './port';
