// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { Request, Response } from 'express';
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/**
 * How every page is written (D40, D41): Preact components rendered to a string on the server.
 * Preact escapes every text and attribute value, so what a partner or shopper typed (an app
 * name, a message) is shown as text, never as markup. No script is ever sent; the one
 * stylesheet is served by this app (STYLESHEET_PATH).
 */

export const STYLESHEET_PATH = '/pages/style.css';

interface PageOptions {
  /** Origins a form on the page may be sent to, or redirected to, beyond this one. */
  formTargets?: readonly string[];
  /** Sources images may load from beyond this origin (`https:` for the photos a person asked to see, D50). */
  imageSources?: readonly string[];
  /** Whether the page runs this origin's scripts (the claim form's photo uploads, D56); none else does. */
  ownScripts?: boolean;
}

/**
 * The headers of every page (D40, D41): never stored, never framed, never indexed, no
 * referrer (a claim link must not leak through one), and a policy that allows this origin's
 * stylesheet and images and nothing else: no script at all, inline or not. A page may add
 * image sources (the shopper's photos once a person asks for them, D50); the shopper's claim
 * form alone runs this origin's one script, which uploads photos as they are chosen (D56).
 */
export function pageHeaders(res: Response, options: PageOptions = {}): void {
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(' ');
  const imgSrc = ["'self'", ...(options.imageSources ?? [])].join(' ');
  res.setHeader(
    'content-security-policy',
    `default-src 'none'; style-src 'self'; img-src ${imgSrc}; form-action ${formAction}; ` +
      (options.ownScripts ? "script-src 'self'; connect-src 'self'; " : '') +
      "frame-ancestors 'none'; base-uri 'none'",
  );
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('pragma', 'no-cache');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-robots-tag', 'noindex, nofollow');
}

/** Sends a page: the headers above, then the document. */
export function sendPage(res: Response, status: number, page: VNode, options: PageOptions = {}): void {
  pageHeaders(res, options);
  res
    .status(status)
    .type('html')
    .send(`<!doctype html>${renderToString(page)}`);
}

/** The frame of every page: one header, one main region, one footer (landmarks). */
export function Layout(props: {
  title: string;
  children: ComponentChildren;
  aside?: ComponentChildren;
  /** Wider frame for tables (the dashboard, D50). */
  wide?: boolean;
}) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>{`${props.title} · Protection Service`}</title>
        <link rel="stylesheet" href={STYLESHEET_PATH} />
      </head>
      <body class={props.wide ? 'wide' : undefined}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="site">
          <p class="brand">Protection Service</p>
          {props.aside}
        </header>
        <main id="main" tabIndex={-1}>
          {props.children}
        </main>
        <footer class="site">
          <p>Purchase protection for your store and your orders.</p>
        </footer>
      </body>
    </html>
  );
}

/** A hidden field per value; undefined ones are left out. */
export function Hidden(props: { values: Record<string, string | undefined> }) {
  return (
    <>
      {Object.entries(props.values).map(([name, value]) =>
        value === undefined ? null : <input type="hidden" name={name} value={value} />,
      )}
    </>
  );
}

/** The e-mail and password fields and the "Sign in" button of every sign-in form (D40, D50). */
export function SignInFields(props: { email?: string; error?: string }) {
  return (
    <>
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
    </>
  );
}

/** A page that says one thing (errors, 404, 429), with an optional way on. */
export function MessagePage(props: { title: string; children: ComponentChildren }) {
  return (
    <Layout title={props.title}>
      <section class="card" aria-labelledby="title">
        <h1 id="title">{props.title}</h1>
        {props.children}
      </section>
    </Layout>
  );
}

/** A form without the session's CSRF token, or not sent from this origin (D40, D50): refused, nothing done. */
export function FormExpired() {
  return (
    <MessagePage title="This form has expired">
      <p>The form was not sent from this page, or your session ended. Go back, reload the page and try again.</p>
    </MessagePage>
  );
}

/** The answer to a sign-in over the per-address limit (D4). */
export function TooManyAttempts() {
  return (
    <MessagePage title="Too many attempts">
      <p>Too many sign-in attempts from this address. Wait a minute, then try again.</p>
    </MessagePage>
  );
}

/** Express 4 does not catch rejected promises: a page handler's failure goes to the error handler. */
export const wrap =
  (handler: (req: Request, res: Response) => Promise<void>) =>
  (req: Request, res: Response, next: (err?: unknown) => void): void => {
    handler(req, res).catch(next);
  };
