// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import express, { Router } from 'express';
import { sendPage } from '../../html';
import type { Dashboard, StorePage } from '../handlers';
import { DASHBOARD_PATH, storePath } from '../paths';
import { bulkForm } from './bulk';
import { EXPORT_PATH, exportClaimsPage } from './export';
import { loadQueue, queueView } from './load';
import { QueuePage } from './views';

export const QUEUE_PATH = `${DASHBOARD_PATH}/stores/:storeId/claims`;
export const BULK_PATH = `${QUEUE_PATH}/bulk`;

/** The claim queue (D50), its bulk actions and its export (D52). */
export function queuePages(dashboard: Dashboard): Router {
  const router = Router();
  // A bulk form carries up to 50 claim ids besides its own fields.
  const bulkBody = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 80 });
  router.get(QUEUE_PATH, dashboard.page(queuePage));
  router.get(EXPORT_PATH, exportClaimsPage(dashboard));
  router.post(
    BULK_PATH,
    bulkBody,
    dashboard.form((req) => storePath(String(req.params.storeId), 'claims'), bulkForm),
  );
  return router;
}

/** `GET …/claims`: the claim queue (D50). */
async function queuePage({ req, res, session, store, api }: StorePage): Promise<void> {
  const view = queueView(req);
  const page = await loadQueue(api, view);
  const canAct = api.can('claim:manage');
  const canMessage = api.can('claim:update', 'claim:manage');
  const bulk =
    canAct || canMessage ? { csrf: session.csrf, move: canAct, decline: canAct, message: canMessage } : undefined;
  sendPage(
    res,
    200,
    <QueuePage session={session} store={store} query={req.query} view={view} page={page} bulk={bulk} />,
  );
}
