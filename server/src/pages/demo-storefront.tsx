// The production install has no tsconfig: the JSX runtime is named here, per file.
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import type { RequestHandler } from 'express';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { AppDeps } from '../app-deps';
import { findStore } from '../domain/identity/stores';
import { Layout, STYLESHEET_PATH } from './html';

export const DEMO_STOREFRONT_PATH = '/demo/storefront';
/** The demo store `pnpm cli seed` makes (scripts/cli.ts). */
const DEMO_DOMAIN = 'demo-store.localhost';
const CART = [
  { name: 'Teapot', quantity: 2, price: 30 },
  { name: 'Cups', quantity: 4, price: 10 },
];

/**
 * D55: a development install's demo cart, the demo store's, with <protection-offer> in a plain
 * form that sends itself back here (GET), so the page shows what the form submitted. The one
 * page this app serves with a script: its own /widget/v1/offer.js, under a policy naming only
 * this origin. Production installs answer 404.
 */
export function demoStorefront(ctx: Pick<AppDeps, 'db' | 'config'>): RequestHandler {
  return (req, res, next) => {
    if (req.path !== DEMO_STOREFRONT_PATH || req.method !== 'GET') return next();
    if (ctx.config.deploymentEnvironment !== 'local') return next();
    findStore(ctx.db, { domain: DEMO_DOMAIN }).then((store) => {
      const submitted = typeof req.query.protection_offer === 'string' ? req.query.protection_offer : undefined;
      const subtotal = CART.reduce((sum, i) => sum + i.quantity * i.price, 0);
      res.setHeader(
        'content-security-policy',
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      res.setHeader('cache-control', 'no-store');
      const page = (
        <Layout title="Demo cart">
          <h1>Demo cart</h1>
          {store ? (
            <form method="get" action={DEMO_STOREFRONT_PATH} class="card">
              <ul>
                {CART.map((i) => (
                  <li>
                    {i.quantity} x {i.name}, ${i.price.toFixed(2)} each
                  </li>
                ))}
              </ul>
              <p>Subtotal: ${subtotal.toFixed(2)}</p>
              {h('protection-offer', {
                store: store.domain,
                subtotal: String(subtotal),
                currency: store.currency,
                country: 'US',
              })}
              <input type="hidden" name="submitted" value="1" />
              <p>
                <button type="submit">Check out</button>
              </p>
            </form>
          ) : (
            <p>
              The demo store is missing: run <code>pnpm cli seed</code>, then reload this page.
            </p>
          )}
          {submitted === undefined ? null : (
            <section class="card" aria-labelledby="submitted">
              <h2 id="submitted">What the form submitted</h2>
              <p>
                <code>protection_offer</code> = <code class="token">{submitted}</code>
              </p>
            </section>
          )}
          {req.query.submitted !== undefined && submitted === undefined ? (
            <p>The form submitted no protection_offer: protection was not chosen.</p>
          ) : null}
        </Layout>
      );
      const html = renderToString(page).replace(
        `<link rel="stylesheet" href="${STYLESHEET_PATH}"/>`,
        `<link rel="stylesheet" href="${STYLESHEET_PATH}"/><script src="/widget/v1/offer.js"></script>`,
      );
      res.status(200).type('html').send(`<!doctype html>${html}`);
    }, next);
  };
}
