// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { Router } from 'express';
import { sendPage } from '../../html';
import { DashboardLayout } from '../frame';
import type { Dashboard } from '../handlers';
import { DASHBOARD_PATH } from '../paths';
import { auditView, loadAudit } from './load';
import { AuditBody, AuditFilters } from './views';

export const AUDIT_PATH = `${DASHBOARD_PATH}/stores/:storeId/audit`;

/**
 * The store's audit log (D53): who did what, newest first, 50 a page, with filters. Read with
 * the person's dashboard token, as the route takes it; the route checks the role, and an
 * agent or viewer is told their role does not allow it (the nav does not offer it to them).
 */
export function auditPages(dashboard: Dashboard): Router {
  const router = Router();
  router.get(
    AUDIT_PATH,
    dashboard.page(async ({ req, res, session, store }) => {
      const view = auditView(req);
      const data = await loadAudit(dashboard, { req, session, store }, view);
      sendPage(
        res,
        200,
        <DashboardLayout title="Audit log" session={session} store={store} section="audit">
          <h1>Audit log</h1>
          <AuditFilters storeId={store.id} view={view} />
          <AuditBody storeId={store.id} view={view} page={data} />
        </DashboardLayout>,
      );
    }),
  );
  return router;
}
