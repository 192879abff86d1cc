// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import express, { type Request, type Response, Router } from 'express';
import { storesOfUser } from '../domain/auth/browser-sessions';
import { approveInstall, previewInstall } from '../domain/auth/install';
import { withOriginOf } from '../http/origin';
import { Refusal } from '../lib/refusal';
import type { RouteContext } from '../routes/context';
import {
  AUTHORIZE_PATH,
  type AuthorizeRequest,
  authorizeUrl,
  CONSENT_PATH,
  errorRedirect,
  formTarget,
  parseRequest,
  SIGN_IN_PATH,
  SIGN_OUT_PATH,
  STORE_PATH,
  scopesOf,
  single,
} from './authorize-request';
import { ConsentPage, ErrorPage, SignInPage, StoreChoicePage } from './authorize-views';
import type { BrowserSession, BrowserSessions } from './browser-session';
import { FormExpired, sendPage, TooManyAttempts, wrap } from './html';
import { passwordSignIn } from './sign-in';

/**
 * The authorization endpoint in a browser (D40, RFC 6749 §4.1): `GET /v1/oauth/authorize`
 * shows sign-in, store choice or consent; its forms post to the paths of authorize-request.ts,
 * which also reads the request, and the pages are authorize-views.tsx. The JSON routes of D10
 * (`POST /v1/oauth/authorize`, `/approve`) are the contract's and stay as they are.
 */

/** A redirect that turns a form post into a GET (303), never cached. */
function seeOther(res: Response, location: string): void {
  res.setHeader('cache-control', 'no-store');
  res.redirect(303, location);
}

/** The D40 pages and their form posts. */
export function authorizePages(ctx: RouteContext, sessions: BrowserSessions): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const pages = new AuthorizeFlow(ctx, sessions);
  router.get(AUTHORIZE_PATH, wrap(pages.authorize));
  router.post(SIGN_IN_PATH, form, wrap(pages.signIn));
  router.post(SIGN_OUT_PATH, form, wrap(pages.signOut));
  router.post(STORE_PATH, form, wrap(pages.chooseStore));
  router.post(CONSENT_PATH, form, wrap(pages.consent));
  return router;
}

/** The steps of the install flow, one handler each (D40). */
class AuthorizeFlow {
  constructor(
    private readonly ctx: RouteContext,
    private readonly sessions: BrowserSessions,
  ) {}

  /**
   * What every form post starts with: its session, its CSRF token, and the authorization
   * request it carries (from `fields`, or from the form's `continue` query). Undefined when it
   * has answered already (403, the error page, or the error redirect).
   */
  private async posted(
    req: Request,
    res: Response,
    fields: (body: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<{ session: BrowserSession; request: AuthorizeRequest; body: Record<string, unknown> } | undefined> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const session = await this.sessions.read(req);
    if (!session || !this.sessions.csrfMatches(session, body.csrf)) {
      forbidden(res);
      return undefined;
    }
    const parsed = await parseRequest(this.ctx, fields(body));
    if (parsed.kind === 'page') sendPage(res, 400, <ErrorPage message={parsed.message} />);
    else if (parsed.kind === 'redirect') seeOther(res, parsed.location);
    else return { session, request: parsed.request, body };
    return undefined;
  }

  /** Sign-in, store choice or consent for a request known good (D40). */
  private async show(req: Request, res: Response, request: AuthorizeRequest): Promise<void> {
    const session = await this.sessions.ensure(req, res);
    if (!session.user)
      return sendPage(res, 200, <SignInPage appName={request.appName} session={session} back={request.params} />);
    let storeId = request.store;
    if (storeId === undefined) {
      const stores = await storesOfUser(this.ctx.db, session.user.id);
      if (stores.length === 0) {
        return sendPage(
          res,
          403,
          <ErrorPage message="Your account belongs to no store, so there is nothing to install the app on." />,
        );
      }
      if (stores.length > 1)
        return sendPage(res, 200, <StoreChoicePage request={request} session={session} stores={stores} />);
      storeId = stores[0]!.id;
    }
    try {
      const preview = await previewInstall(this.ctx.db, {
        userId: session.user.id,
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        storeId,
        scopes: scopesOf(request),
      });
      sendPage(res, 200, <ConsentPage request={request} session={session} preview={preview} />, {
        formTargets: [formTarget(request.redirectUri)],
      });
    } catch (err) {
      seeOther(res, refusalRedirect(err, request));
    }
  }

  readonly authorize = async (req: Request, res: Response): Promise<void> => {
    const parsed = await parseRequest(this.ctx, req.query);
    if (parsed.kind === 'page') return sendPage(res, 400, <ErrorPage message={parsed.message} />);
    if (parsed.kind === 'redirect') return seeOther(res, parsed.location);
    await this.show(req, res, parsed.request);
  };

  readonly signIn = async (req: Request, res: Response): Promise<void> => {
    const posted = await this.posted(req, res, (body) =>
      Object.fromEntries(new URLSearchParams(single(body.continue) ?? '')),
    );
    if (!posted) return;
    const { session, request, body } = posted;
    const email = (single(body.email) ?? '').slice(0, 320);
    const outcome = await passwordSignIn(this.ctx, this.sessions, req, res, {
      email,
      password: single(body.password) ?? '',
    });
    if (outcome === 'limited') return sendPage(res, 429, <TooManyAttempts />);
    if (outcome === 'wrong') {
      const page = (
        <SignInPage
          appName={request.appName}
          session={session}
          back={request.params}
          email={email}
          error="Wrong e-mail or password."
        />
      );
      return sendPage(res, 401, page);
    }
    seeOther(res, authorizeUrl(request.params));
  };

  readonly signOut = async (req: Request, res: Response): Promise<void> => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const session = await this.sessions.read(req);
    if (!session || !this.sessions.csrfMatches(session, body.csrf)) return forbidden(res);
    await this.sessions.signOut(res, session);
    const back = new URLSearchParams(single(body.continue) ?? '');
    seeOther(res, `${AUTHORIZE_PATH}?${back}`);
  };

  /** The store choice: back to the request with the chosen store, which consent checks (D7). */
  readonly chooseStore = async (req: Request, res: Response): Promise<void> => {
    const posted = await this.posted(req, res, ({ csrf: _csrf, ...fields }) => fields);
    if (posted) seeOther(res, authorizeUrl(posted.request.params));
  };

  readonly consent = async (req: Request, res: Response): Promise<void> => {
    const posted = await this.posted(req, res, ({ csrf: _csrf, decision: _decision, ...fields }) => fields);
    if (!posted) return;
    const { session, request, body } = posted;
    // Signed out in another tab since: sign in again, then consent again.
    if (!session.user) return seeOther(res, authorizeUrl(request.params));
    const { redirectUri, state } = request;
    if (body.decision === 'cancel') {
      return seeOther(res, errorRedirect(redirectUri, 'access_denied', 'the merchant cancelled the install', state));
    }
    if (body.decision !== 'install' || request.store === undefined) {
      return seeOther(res, errorRedirect(redirectUri, 'invalid_request', 'malformed consent', state));
    }
    try {
      const { auth, config } = this.ctx;
      const [userId, storeId] = [session.user.id, request.store];
      const approved = await withOriginOf(req, auth.trustProxy, config.secretKey, () =>
        approveInstall(this.ctx.db, {
          userId,
          clientId: request.clientId,
          redirectUri,
          storeId,
          scopes: scopesOf(request),
          state,
          codeChallenge: request.codeChallenge,
        }),
      );
      seeOther(res, approved.redirectUri);
    } catch (err) {
      seeOther(res, refusalRedirect(err, request));
    }
  };
}

/** A domain refusal after validation, as the redirect RFC 6749 §4.1.2.1 asks for. */
function refusalRedirect(err: unknown, request: AuthorizeRequest): string {
  if (!(err instanceof Refusal)) throw err;
  // Scopes are the only thing left for the preview to refuse as invalid (D10); a store that
  // is not the user's is missing (D7).
  const code = err.kind === 'invalid' ? 'invalid_scope' : 'invalid_request';
  return errorRedirect(request.redirectUri, code, err.message, request.state);
}

/** A form without the session's CSRF token (D40): refused, nothing done. */
function forbidden(res: Response): void {
  sendPage(res, 403, <FormExpired />);
}
