// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { ProtectionApiError } from '@protection-service/sdk';
import type { Request, RequestHandler, Response } from 'express';
import { currentRequest } from '../../lib/request-context';
import { FormExpired, sendPage } from '../html';
import { sameOrigin, seeOther, withNotice } from './forms';
import { DashboardLayout, Refused } from './frame';
import { DASHBOARD_PATH, DASHBOARD_SIGN_IN_PATH } from './paths';
import type { DashboardPort, MemberStore } from './port';
import { type SignedIn, StaffApi, type StoreApi } from './staff-api';

/** What a store page's handler works with. */
export interface StorePage {
  req: Request;
  res: Response;
  session: SignedIn;
  store: MemberStore;
  api: StoreApi;
}

/** What a store form's handler works with: the page's, and the posted fields. */
export interface StoreForm extends StorePage {
  body: Record<string, unknown>;
}

/**
 * The one way into a dashboard page or form (D50): the browser session (else the sign-in
 * page), the store among the user's (else 404, as for a store that does not exist, D7), the
 * API with a staff token (D49), and for a POST the CSRF token and the same-origin check. The
 * API's refusals become pages: 404 as "not found" whatever the reason, 403 as "your role
 * does not allow this", 409 as a notice on the page the form came from, others with the
 * API's own message.
 */
export class Dashboard {
  readonly staff: StaffApi;

  constructor(readonly port: DashboardPort) {
    this.staff = new StaffApi(port);
  }

  /** The signed-in session, or undefined having sent the browser to sign in. */
  async signedIn(req: Request, res: Response): Promise<SignedIn | undefined> {
    const session = await this.port.sessions.read(req);
    if (session?.user) return session as SignedIn;
    const next = req.method === 'GET' ? `?next=${encodeURIComponent(req.originalUrl)}` : '';
    seeOther(res, `${DASHBOARD_SIGN_IN_PATH}${next}`);
    return undefined;
  }

  /** A POST's session when its CSRF token and origin are right; else a 403 page. */
  async posted(req: Request, res: Response): Promise<SignedIn | undefined> {
    const session = await this.port.sessions.read(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!session || !this.port.sessions.csrfMatches(session, body.csrf) || !sameOrigin(req, this.port.publicOrigin)) {
      sendPage(res, 403, <FormExpired />);
      return undefined;
    }
    if (session.user) return session as SignedIn;
    seeOther(res, DASHBOARD_SIGN_IN_PATH);
    return undefined;
  }

  /** A GET of a store's page. */
  page(handler: (page: StorePage) => Promise<void>): RequestHandler {
    return (req, res, next) => {
      this.run(req, res, false, handler)
        .catch((err) => this.refused(err, req, res, DASHBOARD_PATH))
        .catch(next);
    };
  }

  /** A POST of a store's form; `back` is the page it came from, where a 409 is told. */
  form(back: (req: Request) => string, handler: (form: StoreForm) => Promise<void>): RequestHandler {
    return (req, res, next) => {
      this.run(req, res, true, (page) => handler({ ...page, body: (req.body ?? {}) as Record<string, unknown> }))
        .catch((err) => this.refused(err, req, res, back(req)))
        .catch(next);
    };
  }

  private async run(
    req: Request,
    res: Response,
    post: boolean,
    handler: (page: StorePage) => Promise<void>,
  ): Promise<void> {
    const session = post ? await this.posted(req, res) : await this.signedIn(req, res);
    if (!session) return;
    const storeId = String(req.params.storeId ?? '');
    describeRequest(session.user.id, storeId);
    const store = (await this.port.storesOf(session.user.id)).find((s) => s.id === storeId);
    const api = store ? await this.staff.open(req, session, store) : undefined;
    if (!store || !api) return notFound(res, session);
    await handler({ req, res, session, store, api });
  }

  /** The API's refusal as a page; anything else goes on to the error page (500). */
  private async refused(err: unknown, req: Request, res: Response, back: string): Promise<void> {
    if (!(err instanceof ProtectionApiError) || err.status >= 500 || res.headersSent) throw err;
    const session = (await this.port.sessions.read(req)) as SignedIn | undefined;
    if (!session?.user) return seeOther(res, DASHBOARD_SIGN_IN_PATH);
    if (err.status === 404) return notFound(res, session);
    if (err.status === 409 && req.method === 'POST') return seeOther(res, withNotice(back, 'conflict'));
    if (err.status === 403) {
      return sendPage(
        res,
        403,
        <DashboardLayout title="Not allowed" session={session}>
          <h1>Your role does not allow this</h1>
          <p>Ask an owner or admin of the store if you need to do this.</p>
          <p>
            <a href={back}>Go back</a>
          </p>
        </DashboardLayout>,
      );
    }
    sendPage(
      res,
      err.status,
      <DashboardLayout title="Not done" session={session}>
        <h1>This was not done</h1>
        <Refused message={err.body.message} />
        <p>
          <a href={back}>Go back</a> and try again.
        </p>
      </DashboardLayout>,
    );
  }
}

/**
 * The person and the store a page acts for, on the request's context: every log line the page
 * causes, its access line and its span name them, as the API's auth gate does for a token.
 * Ids only, as the person typed them in the path (an unknown store is answered as one, D7).
 */
function describeRequest(userId: string, storeId: string): void {
  const context = currentRequest();
  if (!context) return;
  context.userId = userId;
  if (storeId) context.storeId = storeId;
}

/** Unknown, another store's, or not the user's: one answer (D7). */
export function notFound(res: Response, session: SignedIn): void {
  sendPage(
    res,
    404,
    <DashboardLayout title="Not found" session={session}>
      <h1>Not found</h1>
      <p>There is nothing here, or it is not in a store of yours.</p>
      <p>
        <a href={DASHBOARD_PATH}>Your stores</a>
      </p>
    </DashboardLayout>,
  );
}

/** A page that needs no store: the sign-in check only, failures to the error page. */
export function signedInPage(
  dashboard: Dashboard,
  handler: (req: Request, res: Response, session: SignedIn) => Promise<void>,
): RequestHandler {
  return (req, res, next) => {
    (async () => {
      const session = await dashboard.signedIn(req, res);
      if (session) await handler(req, res, session);
    })().catch(next);
  };
}
