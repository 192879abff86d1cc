// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { type TClaimQueue, unwrap } from '@protection-service/sdk';
import express, { type Response, Router } from 'express';
import type { BrowserSession } from '../browser-session';
import { Hidden, Layout, SignInFields, sendPage, TooManyAttempts } from '../html';
import { field, seeOther, withNotice } from './forms';
import { DashboardLayout, Notice } from './frame';
import { type Dashboard, type StorePage, signedInPage } from './handlers';
import { DASHBOARD_PATH, DASHBOARD_SIGN_IN_PATH, DASHBOARD_SIGN_OUT_PATH, safeNext, storePath } from './paths';
import { ClaimRows } from './queue/views';
import type { SignedIn } from './staff-api';
import { CLAIM_TABS } from './words';

/** Sign-in and sign-out (D40's session, D50), the user's stores, and a store's home page. */
export function storePages(dashboard: Dashboard): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const { sessions } = dashboard.port;

  router.get(DASHBOARD_SIGN_IN_PATH, (req, res, next) => {
    (async () => {
      const session = await sessions.ensure(req, res);
      if (session.user) return seeOther(res, safeNext(req.query.next));
      sendPage(res, 200, <SignInPage session={session} next={safeNext(req.query.next)} notice={req.query.notice} />);
    })().catch(next);
  });

  router.post(DASHBOARD_SIGN_IN_PATH, form, (req, res, next) => {
    (async () => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const session = await sessions.read(req);
      if (!session || !sessions.csrfMatches(session, body.csrf)) return dashboard.posted(req, res);
      const email = field(body, 'email');
      const outcome = await dashboard.port.signIn(req, res, { email, password: field(body, 'password') });
      if (outcome === 'limited') return sendPage(res, 429, <TooManyAttempts />);
      const next = safeNext(field(body, 'next'));
      if (outcome === 'wrong') {
        return sendPage(
          res,
          401,
          <SignInPage session={session} next={next} email={email} error="Wrong e-mail or password." />,
        );
      }
      seeOther(res, next);
    })().catch(next);
  });

  router.post(DASHBOARD_SIGN_OUT_PATH, form, (req, res, next) => {
    (async () => {
      const session = await dashboard.posted(req, res);
      if (!session) return;
      dashboard.staff.forget(session.id);
      await sessions.signOut(res, session);
      seeOther(res, withNotice(DASHBOARD_SIGN_IN_PATH, 'signedOut'));
    })().catch(next);
  });

  router.get(
    DASHBOARD_PATH,
    signedInPage(dashboard, (_req, res, session) => storesPage(dashboard, res, session)),
  );
  router.get(`${DASHBOARD_PATH}/stores/:storeId`, dashboard.page(homePage));
  return router;
}

/** `GET /dashboard`: the stores the person belongs to. */
async function storesPage(dashboard: Dashboard, res: Response, session: SignedIn): Promise<void> {
  const stores = await dashboard.port.storesOf(session.user.id);
  sendPage(
    res,
    200,
    <DashboardLayout title="Your stores" session={session}>
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
    </DashboardLayout>,
  );
}

/** `GET /dashboard/stores/:storeId`: how many claims each tab holds, and the oldest to do. */
async function homePage({ res, session, store, api }: StorePage): Promise<void> {
  if (!api.can('claim:read', 'claim:update', 'claim:manage')) {
    return sendPage(
      res,
      200,
      <DashboardLayout title="Home" session={session} store={store} section="home">
        <h1>{store.name}</h1>
        <p>Your role has no access to claims.</p>
      </DashboardLayout>,
    );
  }
  // One page of each tab: its count up to a page ("50 or more" beyond), and the oldest to do.
  const tabs = CLAIM_TABS.filter(
    (t): t is (typeof CLAIM_TABS)[number] & { queue: TClaimQueue } => t.queue !== undefined,
  );
  const pages = await Promise.all(
    tabs.map(async (t) => unwrap(await api.client.claims.list({ query: { queue: t.queue, first: 50, order: 'asc' } }))),
  );
  const todo = pages[0]!.edges.map((e) => e.node).slice(0, 10);
  sendPage(
    res,
    200,
    <DashboardLayout title="Home" session={session} store={store} section="home">
      <h1>{store.name}</h1>
      <h2>Claims</h2>
      <ul class="grid counts">
        {tabs.map((t, i) => (
          <li class="card">
            <a href={`${storePath(store.id, 'claims')}?tab=${t.key}`}>{t.label}</a>:{' '}
            <strong>{pages[i]!.pageInfo.hasNextPage ? '50 or more' : pages[i]!.edges.length}</strong>
          </li>
        ))}
      </ul>
      <h2>Oldest claims to do</h2>
      {todo.length === 0 ? (
        <p>Nothing to do: no claim is waiting for you.</p>
      ) : (
        <ClaimRows storeId={store.id} caption="The claims that have waited longest" claims={todo} />
      )}
    </DashboardLayout>,
  );
}

function SignInPage(props: {
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
