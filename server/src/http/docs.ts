import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildOpenApi, forDeployment } from '@protection-service/contract/openapi';
import express, { Router } from 'express';

// The package's own entry point loads the whole 1.5 MB bundle into the server; only its
// directory is needed, to serve the files.
/** The committed document at the repository root. */
const OPENAPI_FILE = path.resolve(import.meta.dirname, '../../../openapi.json');

const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Protection Service API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="api-reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const INIT_JS = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#api-reference',
  deepLinking: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  tryItOutEnabled: false,
});
`;

/**
 * `GET /openapi.json` (the contract's document, naming this deployment's public address as
 * its server) and `GET /docs`, an interactive reference whose assets come from this server,
 * not a CDN.
 */
export function docs(publicBaseUrl: string): Router {
  const router = Router();
  // Read on first request, not at start-up: most processes (and every test server) never serve
  // it. The committed file is what the contract generates (CI checks it); generating it again
  // here would hold the event loop for a second.
  let document: string | undefined;
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').setHeader('cache-control', 'public, max-age=300');
    document ??= JSON.stringify(
      existsSync(OPENAPI_FILE)
        ? forDeployment(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')), publicBaseUrl)
        : buildOpenApi({ serverUrl: publicBaseUrl }),
    );
    res.send(document);
  });
  const page = (_req: express.Request, res: express.Response) => {
    res.setHeader(
      'content-security-policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
    );
    res.type('html').send(INDEX_HTML);
  };
  router.get('/docs', page);
  router.get('/docs/', page);
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT_JS);
  });
  router.use('/docs/assets', express.static(SWAGGER_UI_DIR, { index: false, maxAge: '1h', fallthrough: false }));
  return router;
}
