// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import express, { Router } from 'express';
import { sendPage, TooManyAttempts } from '../../html';
import { seeOther, withNotice } from '../forms';
import { type Dashboard, signedInPage } from '../handlers';
import { DASHBOARD_PATH, DASHBOARD_SIGN_IN_PATH, DASHBOARD_SIGN_OUT_PATH, safeNext } from '../paths';
import { signInBody } from './forms';
import { loadHomeClaims, loadStores } from './load';
import { HomePage, SignInPage, StoresPage } from './views';

export const STORE_HOME_PATH = `${DASHBOARD_PATH}/stores/:storeId`;

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
      const { email, password, next } = signInBody(body);
      const outcome = await dashboard.port.signIn(req, res, { email, password });
      if (outcome === 'limited') return sendPage(res, 429, <TooManyAttempts />);
      if (outcome === 'wrong') {
        const error = 'Wrong e-mail or password.';
        return sendPage(res, 401, <SignInPage session={session} next={next} email={email} error={error} />);
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
    signedInPage(dashboard, async (_req, res, session) => {
      sendPage(res, 200, <StoresPage session={session} stores={await loadStores(dashboard, session)} />);
    }),
  );
  router.get(
    STORE_HOME_PATH,
    dashboard.page(async (page) => {
      const { api, res, session, store } = page;
      const claims = api.can('claim:read', 'claim:update', 'claim:manage') ? await loadHomeClaims(page) : undefined;
      sendPage(res, 200, <HomePage session={session} store={store} claims={claims} />);
    }),
  );
  return router;
}
