// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import express, { Router } from 'express';
import { sendPage } from '../../html';
import { DashboardLayout, Notice } from '../frame';
import type { Dashboard, StorePage } from '../handlers';
import { DASHBOARD_PATH, storePath } from '../paths';
import { CLAIM_TABS } from '../words';
import { BulkResults, bulkForm } from './bulk';
import { EXPORT_PATH, exportClaimsPage } from './export';
import { exportHref, loadQueue, queueHref, queueView } from './load';
import { ClaimTable, Filters } from './views';

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
  sendPage(
    res,
    200,
    <DashboardLayout title="Claims" session={session} store={store} section="claims">
      <h1>Claims</h1>
      <Notice code={req.query.notice} />
      <BulkResults query={req.query} />
      <nav class="tabs" aria-label="Claim tabs">
        <ul>
          {CLAIM_TABS.map((t) => (
            <li>
              <a
                href={queueHref(store.id, view, { tab: t.key, after: undefined })}
                aria-current={t.key === view.tab.key ? 'page' : undefined}
              >
                {t.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <Filters storeId={store.id} view={view} />
      <p class="actions">
        <a href={exportHref(store.id, view)} download>
          Export
        </a>{' '}
        <span class="muted">these claims as CSV (every page, at most 100,000)</span>
      </p>
      <ClaimTable
        storeId={store.id}
        view={view}
        page={page}
        bulk={
          canAct || canMessage ? { csrf: session.csrf, move: canAct, decline: canAct, message: canMessage } : undefined
        }
      />
    </DashboardLayout>,
  );
}
