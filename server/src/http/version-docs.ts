import path from 'node:path';
import { type ApiVersion, changelog, isApiVersion } from '@protection-service/contract';
import { Router } from 'express';
import { type Deployment, servedDocument } from './docs';

/** The committed documents: `openapi/<version>.json` at the repository root (D44). */
const OPENAPI_DIR = path.resolve(import.meta.dirname, '../../../openapi');

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** The changelog's inline code (`…`) as <code>, the rest escaped. */
const inline = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, (_, code: string) => `<code>${code}</code>`);

/** `/docs/versions`: the changelog of the dated versions as a page, one anchor per version and per change. */
function changelogPage(): string {
  const sections = changelog().map((entry) => {
    const status = entry.latest
      ? 'The latest version.'
      : `Deprecated since ${entry.deprecatedAt?.slice(0, 10)}; served until ${entry.sunset?.slice(0, 10)}.`;
    const changes = entry.changes
      .map(
        (c) => `<section id="${escapeHtml(c.id)}">
<h3>${inline(c.title)}</h3>
<p>${inline(c.description)}</p>
<p><strong>Why it changed:</strong> ${inline(c.why)}</p>
<p><strong>How to upgrade:</strong> ${inline(c.upgrade)}</p>
<p><strong>Routes:</strong> ${c.routes.length ? c.routes.map((r) => `<code>${escapeHtml(r)}</code>`).join(', ') : 'the 403 answers of every versioned route'}</p>
</section>`,
      )
      .join('\n');
    return `<section id="${entry.version}">
<h2>${entry.version}</h2>
<p>${status} Document: <a href="/openapi/${entry.version}.json">/openapi/${entry.version}.json</a>.</p>
${entry.successor ? `<p>What differs from ${entry.successor}:</p>\n` : ''}${changes}
</section>`;
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Protection Service API versions</title>
<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code{background:#f3f3f3;padding:0 .2em}</style>
</head>
<body>
<h1>API versions</h1>
<p>Calls with an app access token name their version in the <code>Api-Version</code> header; without one, the app's pinned version answers, else the latest. Every such answer names its version in <code>Api-Version</code>. See also <a href="/docs">the API reference</a>.</p>
${sections.join('\n')}
</body>
</html>
`;
}

/**
 * `GET /openapi/<version>.json` (each version's document, D44, naming this deployment's
 * address) and `GET /docs/versions` (the changelog). `/openapi.json` stays the latest's.
 */
export function versionDocs(deployment: Deployment): Router {
  const router = Router();
  const documents = new Map<ApiVersion, string>();
  router.get('/openapi/:file', (req, res, next) => {
    const version = req.params.file?.replace(/\.json$/, '');
    if (!req.params.file?.endsWith('.json') || !isApiVersion(version)) return next();
    let document = documents.get(version);
    if (!document) {
      document = servedDocument(path.join(OPENAPI_DIR, `${version}.json`), version, deployment);
      documents.set(version, document);
    }
    res.type('application/json').setHeader('cache-control', 'public, max-age=300');
    res.send(document);
  });
  let page: string | undefined;
  router.get('/docs/versions', (_req, res) => {
    page ??= changelogPage();
    res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.type('html').send(page);
  });
  return router;
}
