// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { BrowserSession } from '../../browser-session';
import { Hidden, Layout, SignInFields } from '../../html';
import { DashboardLayout, Notice } from '../frame';
import { DASHBOARD_SIGN_IN_PATH, storePath } from '../paths';
import type { MemberStore } from '../port';
import { ClaimRows } from '../queue/views';
import type { SignedIn } from '../staff-api';
import type { HomeClaims } from './load';

/** `GET /dashboard`: the stores the person belongs to. */
export function StoresPage(props: { session: SignedIn; stores: MemberStore[] }) {
  const { stores } = props;
  return (
    <DashboardLayout title="Your stores" session={props.session}>
      <h1>Your stores</h1>
      {stores.length === 0 ? (
        <p>Your account belongs to no store yet. An owner of a store can add you to it.</p>
      ) : (
        <ul class="stores">
          {stores.map((s) => (
            <li>
              <a href={storePath(s.id)}>{s.name}</a> <span class="muted">({s.domain})</span>
              {s.livemode ? null : <span class="state">Test store</span>}
            </li>
          ))}
        </ul>
      )}
    </DashboardLayout>
  );
}

/**
 * `GET /dashboard/stores/:storeId`: how many claims each tab holds, and the oldest to do;
 * without `claims`, that the person's role has no access to them.
 */
export function HomePage(props: { session: SignedIn; store: MemberStore; claims?: HomeClaims }) {
  const { store, claims } = props;
  const todo = claims?.tabs[0]?.page.edges.map((e) => e.node).slice(0, 10) ?? [];
  return (
    <DashboardLayout title="Home" session={props.session} store={store} section="home">
      <h1>{store.name}</h1>
      {claims === undefined ? (
        <p>Your role has no access to claims.</p>
      ) : (
        <>
          <h2>Claims</h2>
          <ul class="grid counts">
            {claims.tabs.map(({ tab, page }) => (
              <li class="card">
                <a href={`${storePath(store.id, 'claims')}?tab=${tab.key}`}>{tab.label}</a>:{' '}
                <strong>{page.pageInfo.hasNextPage ? '50 or more' : page.edges.length}</strong>
              </li>
            ))}
          </ul>
          <h2>Oldest claims to do</h2>
          {todo.length === 0 ? (
            <p>Nothing to do: no claim is waiting for you.</p>
          ) : (
            <ClaimRows storeId={store.id} caption="The claims that have waited longest" claims={todo} />
          )}
        </>
      )}
    </DashboardLayout>
  );
}

export function SignInPage(props: {
  session: BrowserSession;
  next: string;
  email?: string;
  error?: string;
  notice?: unknown;
}) {
  return (
    <Layout title="Sign in">
      <section class="card" aria-labelledby="title">
        <h1 id="title">Sign in to your dashboard</h1>
        <Notice code={props.notice} />
        {props.error ? (
          <p class="error" role="alert" id="sign-in-error">
            {props.error}
          </p>
        ) : null}
        <form method="post" action={DASHBOARD_SIGN_IN_PATH} class="stack">
          <Hidden values={{ csrf: props.session.csrf, next: props.next }} />
          <SignInFields email={props.email} error={props.error} />
        </form>
      </section>
    </Layout>
  );
}
