// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { sendPage } from '../../html';
import { BulkResults } from '../bulk';
import { DashboardLayout, Notice } from '../frame';
import type { StorePage } from '../handlers';
import { CLAIM_TABS } from '../words';
import { exportHref, loadQueue, queueHref, queueView } from './load';
import { ClaimTable, Filters } from './views';

/** `GET …/claims`: the claim queue (D50). */
export async function queuePage({ req, res, session, store, api }: StorePage): Promise<void> {
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
