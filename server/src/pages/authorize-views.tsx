// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { SCOPE_DESCRIPTIONS, type Scope, type TConsentPreview } from '@protection-service/contract';
import { type AuthorizeRequest, CONSENT_PATH, SIGN_IN_PATH, SIGN_OUT_PATH, STORE_PATH } from './authorize-request';
import type { BrowserSession } from './browser-session';
import { storePath } from './dashboard/paths';
import { Hidden, Layout, MessagePage, SignInFields } from './html';

/** The pages of the install flow (D40): sign-in, store choice, consent, and its error page. */

function SignOut(props: { session: BrowserSession; back: Record<string, string | undefined> }) {
  return (
    <form method="post" action={SIGN_OUT_PATH} class="signout">
      <Hidden values={{ csrf: props.session.csrf, continue: new URLSearchParams(defined(props.back)).toString() }} />
      <span class="who">Signed in as {props.session.user?.email}</span>{' '}
      <button type="submit" class="link">
        Sign out
      </button>
    </form>
  );
}

function defined(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined));
}

export function SignInPage(props: {
  appName: string;
  session: BrowserSession;
  back: Record<string, string | undefined>;
  email?: string;
  error?: string;
}) {
  return (
    <Layout title="Sign in">
      <section class="card" aria-labelledby="title">
        <h1 id="title">Sign in to install {props.appName}</h1>
        <p>Sign in with your store's dashboard account to review what the app asks for.</p>
        {props.error ? (
          <p class="error" role="alert" id="sign-in-error">
            {props.error}
          </p>
        ) : null}
        <form method="post" action={SIGN_IN_PATH} class="stack">
          <Hidden
            values={{ csrf: props.session.csrf, continue: new URLSearchParams(defined(props.back)).toString() }}
          />
          <SignInFields email={props.email} error={props.error} />
        </form>
      </section>
    </Layout>
  );
}

export function StoreChoicePage(props: {
  request: AuthorizeRequest;
  session: BrowserSession;
  stores: { id: string; name: string; domain: string }[];
}) {
  const { store: _store, ...params } = props.request.params;
  return (
    <Layout title="Choose a store" aside={<SignOut session={props.session} back={props.request.params} />}>
      <section class="card" aria-labelledby="title">
        <h1 id="title">Install {props.request.appName} on which store?</h1>
        <form method="post" action={STORE_PATH} class="stack">
          <Hidden values={{ ...params, csrf: props.session.csrf }} />
          <fieldset>
            <legend>Your stores</legend>
            {props.stores.map((s, i) => (
              <div class="choice">
                <input type="radio" id={`store-${i}`} name="store" value={s.id} required checked={i === 0} />
                <label for={`store-${i}`}>
                  {s.name} <span class="muted">({s.domain})</span>
                </label>
              </div>
            ))}
          </fieldset>
          <button type="submit" class="primary">
            Continue
          </button>
        </form>
      </section>
    </Layout>
  );
}

export function ConsentPage(props: { request: AuthorizeRequest; session: BrowserSession; preview: TConsentPreview }) {
  const { preview, request } = props;
  return (
    <Layout title={`Install ${preview.app.name}`} aside={<SignOut session={props.session} back={request.params} />}>
      <section class="card" aria-labelledby="title">
        <h1 id="title">Install {preview.app.name}?</h1>
        <p>
          <strong>{preview.app.name}</strong> asks to be installed on <strong>{preview.store.name}</strong>{' '}
          <span class="muted">({preview.store.domain})</span>.
        </p>
        <h2>It will be able to</h2>
        <ul class="scopes">
          {preview.grantableScopes.map((s) => (
            <li>
              {SCOPE_DESCRIPTIONS[s as Scope]} <span class="muted">({s})</span>
            </li>
          ))}
        </ul>
        {preview.withheldScopes.length > 0 ? (
          <>
            <h2>It asked for, but will not get</h2>
            <ul class="scopes">
              {preview.withheldScopes.map((s) => (
                <li>
                  {SCOPE_DESCRIPTIONS[s as Scope]} <span class="muted">({s})</span>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        {preview.installedScopes ? (
          <p>The app is installed already; installing again replaces what it may do.</p>
        ) : null}
        <p class="muted">
          You can uninstall the app at any time from your <a href={storePath(preview.store.id, 'apps')}>dashboard</a>.
        </p>
        <form method="post" action={CONSENT_PATH} class="actions">
          <Hidden values={{ ...request.params, store: preview.store.id, csrf: props.session.csrf }} />
          <button type="submit" name="decision" value="install" class="primary">
            Install
          </button>
          <button type="submit" name="decision" value="cancel">
            Cancel
          </button>
        </form>
      </section>
    </Layout>
  );
}

export function ErrorPage(props: { message: string }) {
  return (
    <MessagePage title="This install link does not work">
      <p>{props.message}</p>
      <p>Go back to the app that sent you here and start the install again.</p>
    </MessagePage>
  );
}
