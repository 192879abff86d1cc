// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { readFileSync } from 'node:fs';
import { type ErrorRequestHandler, Router } from 'express';
import { storesOfUser } from '../domain/auth/browser-sessions';
import { issueDashboardToken } from '../domain/auth/tokens';
import { invitationLinks } from '../domain/team/members';
import { describeError, mapError } from '../http/errors';
import { DASHBOARD_ORIGIN_HEADER, dashboardOriginKey, signDashboardOrigin } from '../http/origin';
import { compilePaths } from '../http/unmatched';
import type { RouteContext } from '../routes/context';
import { authorizePages } from './authorize';
import { AUTHORIZE_PATH, CONSENT_PATH, SIGN_IN_PATH, SIGN_OUT_PATH, STORE_PATH } from './authorize-request';
import { BrowserSessions } from './browser-session';
import { CLAIM_MESSAGE_PATH, CLAIM_PAGE_PATH, CLAIM_PHOTOS_PATH, claimPages } from './claim';
import { claimFormPages } from './claim-form/forms';
import {
  CLAIM_FORM_FILE_PATH,
  CLAIM_FORM_PATH,
  CLAIM_FORM_PHOTO_PATH,
  CLAIM_FORM_SCRIPT_PATH,
} from './claim-form/views';
import { DASHBOARD_PATH, DASHBOARD_ROUTES, type DashboardPort, dashboardPages } from './dashboard/index';
import { FILE_LINK_PATH, filePages } from './files';
import { MessagePage, STYLESHEET_PATH, sendPage } from './html';
import { INVITATION_PAGE_PATH, invitationPages } from './invitation';
import { passwordSignIn } from './sign-in';

/**
 * The pages people use in a browser (D40, D41), served by the same Express app as the API
 * and through the same request ids, access log, metrics and error logging. They are HTML,
 * outside the contract and openapi.json, as /docs is.
 */
export const PAGE_ROUTES = [
  { method: 'GET', path: AUTHORIZE_PATH },
  { method: 'POST', path: SIGN_IN_PATH },
  { method: 'POST', path: SIGN_OUT_PATH },
  { method: 'POST', path: STORE_PATH },
  { method: 'POST', path: CONSENT_PATH },
  { method: 'GET', path: CLAIM_PAGE_PATH },
  { method: 'POST', path: CLAIM_MESSAGE_PATH },
  { method: 'POST', path: CLAIM_PHOTOS_PATH },
  { method: 'GET', path: CLAIM_FORM_PATH },
  { method: 'POST', path: CLAIM_FORM_PATH },
  { method: 'POST', path: CLAIM_FORM_FILE_PATH },
  { method: 'POST', path: CLAIM_FORM_PHOTO_PATH },
  { method: 'GET', path: CLAIM_FORM_SCRIPT_PATH },
  { method: 'GET', path: STYLESHEET_PATH },
  { method: 'GET', path: FILE_LINK_PATH },
  { method: 'GET', path: INVITATION_PAGE_PATH },
  { method: 'POST', path: INVITATION_PAGE_PATH },
  ...DASHBOARD_ROUTES,
] as const;

/** Whether a path is a page's (the JSON `/v1/oauth/authorize/approve` passes through their router untouched). */
export function isPagePath(path: string): boolean {
  return (
    path === AUTHORIZE_PATH ||
    path.startsWith(`${AUTHORIZE_PATH}/`) ||
    path.startsWith('/claims/view/') ||
    path === CLAIM_FORM_PATH ||
    path.startsWith(`${CLAIM_FORM_PATH}/`) ||
    path === CLAIM_FORM_SCRIPT_PATH ||
    path.startsWith('/files/') ||
    path === DASHBOARD_PATH ||
    path.startsWith(`${DASHBOARD_PATH}/`) ||
    path === STYLESHEET_PATH
  );
}

const STYLESHEET = readFileSync(new URL('./style.css', import.meta.url), 'utf8');
const CLAIM_FORM_SCRIPT = readFileSync(new URL('./claim-form/claim-form.js', import.meta.url), 'utf8');

export function pages(ctx: RouteContext): Router {
  const router = Router();
  const sessions = new BrowserSessions(ctx.db, ctx.config.secretKey, ctx.config.publicBaseUrl);
  const patterns = PAGE_ROUTES.map((r) => ({ path: r.path, regex: compilePaths([r])[0]!.regex }));

  // The access log and the metrics label a page by its template, never by its path (D41),
  // whatever the method: a PUT to a claim link (405) carries the link too.
  router.use((req, res, next) => {
    const route = patterns.find((p) => p.regex.test(req.path));
    if (route) res.locals.pageRoute = route.path;
    next();
  });
  router.get(STYLESHEET_PATH, (_req, res) => {
    res.type('text/css').setHeader('cache-control', 'public, max-age=3600').send(STYLESHEET);
  });
  router.get(CLAIM_FORM_SCRIPT_PATH, (_req, res) => {
    res.type('text/javascript').setHeader('cache-control', 'public, max-age=3600').send(CLAIM_FORM_SCRIPT);
  });
  router.use(authorizePages(ctx, sessions));
  router.use(claimPages(ctx, sessions, ctx.claimLinks));
  // D56: the shopper's claim form.
  router.use(claimFormPages(ctx, sessions));
  // D56: files' capability links.
  router.use(filePages(ctx.db, ctx.fileStorage, ctx.fileLinks));
  // D53: outside the signed-in frame, before the dashboard's own pages.
  router.use(invitationPages(ctx, sessions, invitationLinks(ctx.config.secretKey, ctx.config.publicBaseUrl)));
  router.use(dashboardPages(dashboardPort(ctx, sessions)));
  // Any other dashboard address: a page, not the API's JSON 404.
  router.use(DASHBOARD_PATH, (_req, res) => {
    sendPage(
      res,
      404,
      <MessagePage title="Not found">
        <p>There is no such page.</p>
        <p>
          <a href={DASHBOARD_PATH}>Your stores</a>
        </p>
      </MessagePage>,
    );
  });
  router.use(pageErrors);
  return router;
}

/** What the dashboard may use of the session and the sign-in (D50); it reaches stores through the API. */
function dashboardPort(ctx: RouteContext, sessions: BrowserSessions): DashboardPort {
  const originKey = dashboardOriginKey(ctx.config.secretKey);
  return {
    sessions,
    dashboardToken: (session) =>
      issueDashboardToken(ctx.auth.keys, { userId: session.user.id, grantId: session.id }).token,
    storesOf: (userId) => storesOfUser(ctx.db, userId),
    signIn: (req, res, credentials) => passwordSignIn(ctx, sessions, req, res, credentials),
    vouchFor: (req) => ({
      [DASHBOARD_ORIGIN_HEADER]: signDashboardOrigin(originKey, req, ctx.auth.trustProxy, req.id),
    }),
    publicOrigin: new URL(ctx.config.publicBaseUrl).origin,
  };
}

/**
 * Failures on a page answer a page, not JSON: a body the form parser refused (4xx) says so; an
 * unexpected error is a bare 500 page, logged once by the access log with its request id,
 * exactly as http/errors.ts does for the API.
 */
const pageErrors: ErrorRequestHandler = (err, req, res, next) => {
  if (!res.locals.pageRoute || res.headersSent) return next(err);
  const mapped = mapError(err);
  const status = mapped?.status ?? 500;
  if (status === 500) res.locals.error = describeError(err);
  for (const [name, value] of Object.entries(mapped?.options.headers ?? {})) res.setHeader(name, value);
  // 500, or the database out of reach (503): the page itself is fine, try it again later.
  const later = status >= 500;
  sendPage(
    res,
    status,
    <MessagePage title={later ? 'Something went wrong' : 'This request could not be handled'}>
      <p>{later ? 'The page could not be shown. Try again in a moment.' : 'Go back, reload the page and try again.'}</p>
      <p class="muted">Reference: {req.id}</p>
    </MessagePage>,
  );
};
