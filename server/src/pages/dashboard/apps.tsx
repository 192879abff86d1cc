// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { SCOPE_DESCRIPTIONS, type Scope } from '@protection-service/contract';
import { ProtectionApiError, type TInstallation, unwrap } from '@protection-service/sdk';
import express, { Router } from 'express';
import { Hidden, sendPage } from '../html';
import { seeOther, withNotice } from './forms';
import { DashboardLayout, Notice } from './frame';
import type { Dashboard } from './handlers';
import { DASHBOARD_PATH, storePath } from './paths';
import type { MemberStore } from './port';
import { manages } from './settings';
import type { SignedIn } from './staff-api';
import { shortDate } from './words';

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
      const user = dashboard.staff.asUser(req, session);
      const { data } = unwrap(await user.stores.listInstallations({ params: { storeId: store.id } }));
      const installed = data.filter((i) => i.uninstalledAt === null);
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

function AppsPage(props: { session: SignedIn; store: MemberStore; installed: TInstallation[]; notice: unknown }) {
  const { store } = props;
  const canUninstall = manages(store);
  return (
    <DashboardLayout title="Apps" session={props.session} store={store} section="apps">
      <h1>Apps</h1>
      <Notice code={props.notice} />
      {props.installed.length === 0 ? (
        <p>No app is installed on this store.</p>
      ) : (
        <ul class="stack apps">
          {props.installed.map((app) => (
            <li class="card">
              <h2>{app.appName}</h2>
              <p class="muted">
                Installed {shortDate(app.installedAt)} · <span class="code">{app.clientId}</span>
              </p>
              <p>
                <strong>It may:</strong>
              </p>
              <ul class="scopes">
                {app.scopes.map((s) => (
                  <li>
                    {SCOPE_DESCRIPTIONS[s as Scope] ?? s} <span class="muted">({s})</span>
                  </li>
                ))}
              </ul>
              {canUninstall ? (
                <form method="post" action={`${storePath(store.id, 'apps', app.clientId)}/uninstall`} class="actions">
                  <Hidden values={{ csrf: props.session.csrf }} />
                  <button type="submit" class="danger" aria-label={`Uninstall ${app.appName}`}>
                    Uninstall
                  </button>
                </form>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {canUninstall ? null : <p class="muted">Only an owner or admin of the store can uninstall an app.</p>}
    </DashboardLayout>
  );
}
