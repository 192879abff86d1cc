// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { normalizeScope, SCOPE_DESCRIPTIONS, type Scope, type TConsentPreview } from '@protection-service/contract';
import express, { type Request, type Response, Router } from 'express';
import { storesOfUser } from '../domain/auth/browser-sessions';
import { checkCredentials } from '../domain/auth/dashboard';
import { approveInstall, authorizationTarget, previewInstall } from '../domain/auth/install';
import { clientIp } from '../http/client-ip';
import { rateLimitHeaders } from '../http/rate-limit';
import { Refusal } from '../lib/refusal';
import type { RouteContext } from '../routes/context';
import type { BrowserSession, BrowserSessions } from './browser-session';
import { Hidden, Layout, MessagePage, sendPage, wrap } from './html';

/**
 * The authorization endpoint in a browser (D40, RFC 6749 §4.1): `GET /v1/oauth/authorize`
 * shows sign-in, store choice or consent; its forms post to the paths below. The JSON routes
 * of D10 (`POST /v1/oauth/authorize`, `/approve`) are the contract's and stay as they are.
 */
export const AUTHORIZE_PATH = '/v1/oauth/authorize';
export const SIGN_IN_PATH = '/v1/oauth/authorize/sign-in';
export const SIGN_OUT_PATH = '/v1/oauth/authorize/sign-out';
export const CONSENT_PATH = '/v1/oauth/authorize/consent';
export const STORE_PATH = '/v1/oauth/authorize/store';

/** RFC 7636 §4.2: the S256 challenge is BASE64URL(SHA-256), 43 characters; 43-128 allowed. */
const CODE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;
const MAX_PARAM = 2048;

/** The request's parameters, once the client and its redirect URI are known good. */
interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  appName: string;
  state?: string;
  /** Space-separated, as sent; the app's registered scopes when absent. */
  scope?: string;
  codeChallenge: string;
  store?: string;
  /** The parameters again, for hidden fields and links back. */
  params: Record<string, string | undefined>;
}

type Parsed =
  | { kind: 'ok'; request: AuthorizeRequest }
  /** Client or redirect URI not known good: an error page, never a redirect (RFC 6749 §4.1.2.1). */
  | { kind: 'page'; message: string }
  /** Anything else: back to the client with `error` and `state`. */
  | { kind: 'redirect'; location: string };

const single = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The redirect URI with `error`, `error_description` and `state` (RFC 6749 §4.1.2.1). */
function errorRedirect(redirectUri: string, error: string, description: string, state: string | undefined): string {
  const url = new URL(redirectUri);
  url.searchParams.set('error', error);
  url.searchParams.set('error_description', description);
  if (state !== undefined) url.searchParams.set('state', state);
  return url.toString();
}

/**
 * Reads an authorization request from a query or a form (D40). `client_id` and `redirect_uri`
 * come first: until both are known good the browser stays here. A parameter sent twice is
 * `invalid_request` (RFC 6749 §3.1), PKCE is required and S256 only (D10).
 */
async function parseRequest(ctx: RouteContext, source: Record<string, unknown>): Promise<Parsed> {
  const clientId = single(source.client_id);
  const redirectUri = single(source.redirect_uri);
  if (!clientId || !redirectUri || clientId.length > 255 || redirectUri.length > MAX_PARAM) {
    return { kind: 'page', message: 'The request does not name an app and its redirect URI.' };
  }
  const app = await authorizationTarget(ctx.db, clientId, redirectUri);
  if (!app) return { kind: 'page', message: 'The app is unknown, or the redirect URI is not one it registered.' };

  const state = single(source.state);
  const fail = (error: string, description: string): Parsed => ({
    kind: 'redirect',
    location: errorRedirect(
      redirectUri,
      error,
      description,
      state !== undefined && state.length <= MAX_PARAM ? state : undefined,
    ),
  });
  const repeated = Object.keys(source).find((k) => Array.isArray(source[k]));
  if (repeated !== undefined) return fail('invalid_request', `repeated parameter: ${repeated}`);
  if (state !== undefined && state.length > MAX_PARAM) return fail('invalid_request', 'state is too long');
  const responseType = single(source.response_type);
  if (responseType === undefined) return fail('invalid_request', 'response_type is required');
  if (responseType !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
  const codeChallenge = single(source.code_challenge);
  const method = single(source.code_challenge_method);
  if (!codeChallenge) return fail('invalid_request', 'code_challenge is required (PKCE, S256)');
  if (!CODE_CHALLENGE.test(codeChallenge)) return fail('invalid_request', 'malformed code_challenge');
  if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  const scope = single(source.scope);
  if (scope !== undefined) {
    const names = scope.split(' ').filter((s) => s !== '');
    if (names.length === 0) return fail('invalid_scope', 'no scope requested');
    const unknown = names.find((n) => !normalizeScope(n));
    if (unknown !== undefined) return fail('invalid_scope', `unknown scope: ${unknown.slice(0, 100)}`);
  }
  const store = single(source.store);
  if (store !== undefined && (store === '' || store.length > 255)) return fail('invalid_request', 'malformed store');
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
    store,
  };
  return {
    kind: 'ok',
    request: { clientId, redirectUri, appName: app.name, state, scope, codeChallenge, store, params },
  };
}

function scopesOf(request: AuthorizeRequest): string[] | undefined {
  return request.scope?.split(' ').filter((s) => s !== '');
}

/** The page URL of a request, for links and redirects back to it. */
function authorizeUrl(params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  return `${AUTHORIZE_PATH}?${query}`;
}

/** The origin of a redirect URI, as a CSP source: the consent form is redirected there. */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin === 'null' ? url.protocol : url.origin;
}

// ---------------------------------------------------------------------------------------------
// Views

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

function SignInPage(props: {
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
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value={props.email ?? ''}
            aria-describedby={props.error ? 'sign-in-error' : undefined}
          />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
      </section>
    </Layout>
  );
}

function StoreChoicePage(props: {
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

function ConsentPage(props: { request: AuthorizeRequest; session: BrowserSession; preview: TConsentPreview }) {
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
        <p class="muted">You can uninstall the app at any time from your dashboard.</p>
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

function ErrorPage(props: { message: string }) {
  return (
    <MessagePage title="This install link does not work">
      <p>{props.message}</p>
      <p>Go back to the app that sent you here and start the install again.</p>
    </MessagePage>
  );
}

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
    // D4, D8: the same per-address count as POST /v1/auth/login, so the page is no way around it.
    const { auth } = this.ctx;
    const decision = await auth.limiter.exact(`ip:/v1/auth/login:${clientIp(req, auth.trustProxy)}`, auth.limits.auth);
    const pairs = rateLimitHeaders(decision);
    for (let i = 0; i < pairs.length; i += 2) res.setHeader(pairs[i]!, pairs[i + 1]!);
    if (!decision.allowed) {
      auth.metrics.rateLimited('auth');
      return sendPage(
        res,
        429,
        <MessagePage title="Too many attempts">
          <p>Too many sign-in attempts from this address. Wait a minute, then try again.</p>
        </MessagePage>,
      );
    }
    const email = (single(body.email) ?? '').slice(0, 320);
    const user = await checkCredentials(this.ctx.db, email, (single(body.password) ?? '').slice(0, 1024));
    if (!user) {
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
    await this.sessions.signIn(res, user.id, user.email);
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
      const approved = await approveInstall(this.ctx.db, {
        userId: session.user.id,
        clientId: request.clientId,
        redirectUri,
        storeId: request.store,
        scopes: scopesOf(request),
        state,
        codeChallenge: request.codeChallenge,
      });
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
  sendPage(
    res,
    403,
    <MessagePage title="This form has expired">
      <p>The form was not sent from this page, or your session ended. Go back, reload the page and try again.</p>
    </MessagePage>,
  );
}
