// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { MIN_PASSWORD_LENGTH } from '@protection-service/contract';
import express, { type Request, type Response, Router } from 'express';
import { checkCredentials } from '../domain/auth/dashboard';
import { hashPassword } from '../domain/identity/users';
import { acceptInvitation, INVITATION_PATH, type InvitationView, invitationView } from '../domain/team/members';
import type { CapabilityLinks } from '../lib/capability-links';
import { linkIdOf } from '../lib/capability-links';
import { Refusal } from '../lib/refusal';
import type { RouteContext } from '../routes/context';
import type { BrowserSession, BrowserSessions } from './browser-session';
import { ROLE_WORDS } from './dashboard/words';
import { FormExpired, Hidden, Layout, MessagePage, sendPage, TooManyAttempts, wrap } from './html';
import { passwordAttemptAllowed, startSession } from './sign-in';

/**
 * The invitation page (D53): `/dashboard/invitations/:token`, outside the signed-in frame. The
 * token is the credential: a new e-mail sets a name and password, an e-mail with an account
 * signs in with its password, and either joins the store once, signed in, on the store's page.
 * A reused, expired, withdrawn or unknown link answers the same 404 page. The form carries the
 * session's CSRF token and counts as a sign-in attempt (D4, D40).
 */
export const INVITATION_PAGE_PATH = `${INVITATION_PATH}/:token`;

const NAME_MAX = 128;
const PASSWORD_MAX = 1024;

function InvitationPage(props: { view: InvitationView; session: BrowserSession; action: string; error?: string }) {
  const { view } = props;
  return (
    <Layout title={`Join ${view.storeName}`}>
      <section class="card" aria-labelledby="title">
        <h1 id="title">Join {view.storeName}</h1>
        <p>
          You are invited as <strong>{ROLE_WORDS[view.role].toLowerCase()}</strong> with the e-mail{' '}
          <strong>{view.email}</strong>.
        </p>
        {props.error ? (
          <p class="error" role="alert" id="join-error">
            {props.error}
          </p>
        ) : null}
        <form method="post" action={props.action} class="stack">
          <Hidden values={{ csrf: props.session.csrf }} />
          {view.hasAccount ? <ExistingAccount error={props.error} /> : <NewAccount error={props.error} />}
          <button type="submit" class="primary">
            Join
          </button>
        </form>
      </section>
    </Layout>
  );
}

function NewAccount(props: { error?: string }) {
  const described = props.error ? 'join-error password-rule' : 'password-rule';
  return (
    <>
      <label for="name">Name</label>
      <input id="name" name="name" type="text" autocomplete="name" required maxLength={NAME_MAX} />
      <label for="password">Password</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        aria-describedby={described}
      />
      <p class="muted" id="password-rule">
        At least {MIN_PASSWORD_LENGTH} characters.
      </p>
    </>
  );
}

function ExistingAccount(props: { error?: string }) {
  return (
    <>
      <p>This e-mail has an account: sign in with its password to join.</p>
      <label for="password">Password</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="current-password"
        required
        aria-describedby={props.error ? 'join-error' : undefined}
      />
    </>
  );
}

function NotFoundPage() {
  return (
    <MessagePage title="This invitation does not work">
      <p>The link was used already, has expired, or was replaced by a newer invitation.</p>
      <p>Ask the person who invited you to send a new one.</p>
    </MessagePage>
  );
}

/** The account that joins: the existing one (its password checked) or a new one; else what to tell. */
async function joiningUser(
  ctx: RouteContext,
  view: InvitationView,
  body: Record<string, unknown>,
): Promise<{ id: string } | { newUser: { email: string; name: string; passwordHash: string } } | { error: string }> {
  const password = typeof body.password === 'string' ? body.password.slice(0, PASSWORD_MAX) : '';
  if (view.hasAccount) {
    const user = await checkCredentials(ctx.db, view.email, password);
    return user ? { id: user.id } : { error: 'Wrong password for this account.' };
  }
  const name = typeof body.name === 'string' ? body.name.trim() : '';
  if (name === '' || name.length > NAME_MAX) return { error: `Enter your name (at most ${NAME_MAX} characters).` };
  if (password.length < MIN_PASSWORD_LENGTH) {
    return { error: `The password must have at least ${MIN_PASSWORD_LENGTH} characters.` };
  }
  return { newUser: { email: view.email, name, passwordHash: await hashPassword(password) } };
}

export function invitationPages(ctx: RouteContext, sessions: BrowserSessions, links: CapabilityLinks): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 });
  const pageOf = (req: Request) => `${INVITATION_PATH}/${req.params.token}`;
  const opened = async (req: Request) => {
    const linkId = linkIdOf(links, String(req.params.token ?? ''));
    const view = linkId ? await invitationView(ctx.db, linkId) : undefined;
    return linkId && view ? { linkId, view } : undefined;
  };
  const render = async (req: Request, res: Response, view: InvitationView, status = 200, error?: string) => {
    const session = await sessions.ensure(req, res);
    sendPage(res, status, <InvitationPage view={view} session={session} action={pageOf(req)} error={error} />);
  };

  router.get(
    INVITATION_PAGE_PATH,
    wrap(async (req, res) => {
      const found = await opened(req);
      if (!found) return sendPage(res, 404, <NotFoundPage />);
      await render(req, res, found.view);
    }),
  );

  router.post(
    INVITATION_PAGE_PATH,
    form,
    wrap(async (req, res) => {
      const found = await opened(req);
      if (!found) return sendPage(res, 404, <NotFoundPage />);
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (!sessions.csrfMatches(await sessions.read(req), body.csrf)) return sendPage(res, 403, <FormExpired />);
      if (!(await passwordAttemptAllowed(ctx, req, res))) return sendPage(res, 429, <TooManyAttempts />);
      const user = await joiningUser(ctx, found.view, body);
      if ('error' in user) return render(req, res, found.view, found.view.hasAccount ? 401 : 400, user.error);
      const joined = await acceptInvitation(ctx.db, found.linkId, user).catch((err: unknown) => {
        if (err instanceof Refusal && err.kind === 'conflict') return 'conflict' as const;
        throw err;
      });
      if (joined === 'conflict') {
        return render(req, res, { ...found.view, hasAccount: true }, 409, 'This e-mail has an account now: sign in.');
      }
      // Accepted once: a second post of the same link finds nothing.
      if (!joined) return sendPage(res, 404, <NotFoundPage />);
      await startSession(ctx, sessions, req, res, { id: joined.userId, email: found.view.email });
      res.setHeader('cache-control', 'no-store');
      res.redirect(303, `/dashboard/stores/${encodeURIComponent(joined.storeId)}`);
    }),
  );
  return router;
}
