// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { SCOPE_DESCRIPTIONS, type Scope } from '@protection-service/contract';
import type { TInstallation } from '@protection-service/sdk';
import { Hidden } from '../../html';
import { DashboardLayout, manages, Notice } from '../frame';
import { storePath } from '../paths';
import type { MemberStore } from '../port';
import type { SignedIn } from '../staff-api';
import { shortDate } from '../words';

export function AppsPage(props: {
  session: SignedIn;
  store: MemberStore;
  installed: TInstallation[];
  notice: unknown;
}) {
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
