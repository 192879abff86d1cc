import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { ApiVersion } from '@protection-service/contract';
import { buildOpenApi, forDeployment } from '@protection-service/contract/openapi';
import express, { Router } from 'express';
import type { Config, DeploymentEnvironment } from '../config';

/** The committed document at the repository root. */
const OPENAPI_FILE = path.resolve(import.meta.dirname, '../../../openapi.json');

// Only the package's directory is resolved: its standalone bundle is served as a file, never
// loaded into the server.
const REDOC_BUNDLES = path.join(path.dirname(createRequire(import.meta.url).resolve('redoc/package.json')), 'bundles');

/**
 * The renderer's bundle as the page gets it: its sidebar credit shows a logo from the
 * renderer's CDN, which the page's policy refuses (and the page loads nothing from another
 * origin); it shows an empty image instead.
 */
const FOREIGN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_IMAGE = 'data:image/svg+xml,%3Csvg xmlns=%27http://www.w3.org/2000/svg%27/%3E';
let redocBundle: string | undefined;
function redocStandalone(): string {
  redocBundle ??= readFileSync(path.join(REDOC_BUNDLES, 'redoc.standalone.js'), 'utf8').replaceAll(
    FOREIGN_LOGO,
    EMPTY_IMAGE,
  );
  return redocBundle;
}

/** What a served document says of where it is served: the public address and the environment. */
export type Deployment = Pick<Config, 'publicBaseUrl' | 'deploymentEnvironment'>;

/** The served document's server description, by DEPLOYMENT_ENVIRONMENT (OWASP API9:2023). */
const SERVER_TEXT: Record<DeploymentEnvironment, string> = {
  local: 'Local development install',
  test: 'Test deployment',
  sandbox: 'Sandbox deployment, apart from production',
  staging: 'Staging deployment, apart from production',
  production: 'Production deployment',
};

/**
 * A committed document (`file`; the contract's of `version` where there is none) as this
 * deployment serves it. The committed file is what the contract generates (CI checks it);
 * generating it again here would hold the event loop for a second.
 */
export function servedDocument(file: string, version: ApiVersion | undefined, deployment: Deployment): string {
  const doc = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : buildOpenApi({ version });
  return JSON.stringify(
    forDeployment(doc, {
      url: deployment.publicBaseUrl,
      description: SERVER_TEXT[deployment.deploymentEnvironment],
    }),
  );
}

/** One document the reference page can show, and the name its version picker gives it. */
interface ApiDocument {
  version: string;
  url: string;
  label: string;
}

/**
 * The documents of the reference page (D47), the first one shown by default. With more than
 * one (dated versions) the page shows a version picker.
 */
const API_DOCUMENTS: readonly ApiDocument[] = [{ version: 'latest', url: '/openapi.json', label: 'Latest' }];

/**
 * The reference page's policy: its own scripts and styles (the renderer writes its styles
 * inline), its documents from this server, and the search index's worker, which the renderer
 * starts from a `blob:` URL. Nothing from another origin.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function indexHtml(documents: readonly ApiDocument[]): string {
  // The picker, when there is a choice: a plain form whose `version` query the page reads;
  // init.js submits it on change (and the button does without script).
  const picker =
    documents.length > 1
      ? `<form class="api-version" method="get" action="/docs">
    <label for="api-version">API version</label>
    <select id="api-version" name="version">
${documents.map((d) => `      <option value="${escapeHtml(d.version)}">${escapeHtml(d.label)}</option>`).join('\n')}
    </select>
    <button type="submit">Show</button>
  </form>`
      : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Protection Service API reference</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/docs/docs.css">
</head>
<body>
  <header>${picker}</header>
  <main id="api-reference"></main>
  <script id="api-documents" type="application/json">${JSON.stringify(documents).replace(/</g, '\\u003c')}</script>
  <script src="/docs/assets/redoc.standalone.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;
}

const DOCS_CSS = `body { margin: 0; }
#api-reference blockquote, #api-reference blockquote p { color: #444444; }
.api-version { display: flex; gap: 0.5rem; align-items: center; padding: 0.5rem 1rem; font: 14px sans-serif;
  border-bottom: 1px solid #ccc; background: #fff; }
.api-version select, .api-version button { font: inherit; }
`;

// Shows the document the `version` query names (else the first), with the renderer's greys
// and links darkened where its own fall short of a 4.5:1 contrast on white (WCAG 2 AA); its
// lighter primary (labels such as "additional property") read 3.45:1, so it is the primary too.
const INIT_JS = `(function () {
  var documents = JSON.parse(document.getElementById('api-documents').textContent);
  var wanted = new URLSearchParams(location.search).get('version');
  var current = documents.filter(function (d) { return d.version === wanted; })[0] || documents[0];
  var picker = document.getElementById('api-version');
  if (picker) {
    picker.value = current.version;
    picker.addEventListener('change', function () { picker.form.submit(); });
    var button = picker.form.querySelector('button');
    if (button) button.hidden = true;
  }
  Redoc.init(current.url, {
    expandResponses: '200,201,202',
    jsonSampleExpandLevel: 3,
    nativeScrollbars: true,
    requiredPropsFirst: true,
    pathInMiddlePanel: true,
    theme: {
      colors: { primary: { main: '#1f4fbf', light: '#1f4fbf' }, text: { primary: '#222222', secondary: '#444444' } },
      sidebar: { textColor: '#222222' },
      typography: { links: { color: '#1f4fbf', visited: '#1f4fbf', hover: '#133a8f' } }
    }
  }, document.getElementById('api-reference'));

  // Two mends of the renderer's markup for assistive technology (WCAG 2.1 A: 2.5.3, 2.1.1),
  // kept up as it renders: a menu item is named by what it shows (its method and summary),
  // not by a label that leaves the method out; a code sample that scrolls takes the focus, so
  // it scrolls from the keyboard.
  var root = document.getElementById('api-reference');
  function mend() {
    root.querySelectorAll('li[role="menuitem"][aria-label]').forEach(function (item) { item.removeAttribute('aria-label'); });
    root.querySelectorAll('pre:not([tabindex])').forEach(function (pre) { pre.setAttribute('tabindex', '0'); });
  }
  new MutationObserver(mend).observe(root, { childList: true, subtree: true });
  mend();
})();
`;

/**
 * `GET /openapi.json` (the contract's document, naming this deployment's public address as
 * its server) and `GET /docs`, the reference page (D47): Redoc, whose assets come from this
 * server, not a CDN, showing `documents` (a version picker when there are several).
 */
export function docs(deployment: Deployment, documents: readonly ApiDocument[] = API_DOCUMENTS): Router {
  if (documents.length === 0) throw new Error('the reference page needs at least one document');
  const router = Router();
  // Read on first request, not at start-up: most processes (and every test server) never serve it.
  let document: string | undefined;
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').setHeader('cache-control', 'public, max-age=300');
    document ??= servedDocument(OPENAPI_FILE, undefined, deployment);
    res.send(document);
  });
  const html = indexHtml(documents);
  const page = (_req: express.Request, res: express.Response) => {
    res.setHeader('content-security-policy', CSP);
    res.type('html').send(html);
  };
  router.get('/docs', page);
  router.get('/docs/', page);
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT_JS);
  });
  router.get('/docs/docs.css', (_req, res) => {
    res.type('text/css').send(DOCS_CSS);
  });
  router.get('/docs/assets/redoc.standalone.js', (_req, res) => {
    res.type('application/javascript').setHeader('cache-control', 'public, max-age=3600');
    res.send(redocStandalone());
  });
  router.use('/docs/assets', express.static(REDOC_BUNDLES, { index: false, maxAge: '1h', fallthrough: false }));
  return router;
}
