import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { RequestHandler } from 'express';
import { ifNoneMatchMatches } from './conditional';

/**
 * D55: the `<protection-offer>` script, as the storefront package builds it
 * (storefront/build.ts), at `/widget/v1/offer.js` (five minutes in any cache, with an ETag)
 * and at `/widget/v1/offer.<first 16 hex of its SHA-256>.js` (immutable, for Subresource
 * Integrity). A checkout without a build, or whose sources are newer than the build, builds it
 * on the first request; `pnpm build` builds it ahead.
 */
const ROOT = path.resolve(import.meta.dirname, '../../../storefront');
const BUILT = path.join(ROOT, 'dist', 'offer.js');
const PATH = /^\/widget\/v1\/offer(?:\.([0-9a-f]{16}))?\.js$/;
export const OFFER_SCRIPT_PATH = '/widget/v1/offer.js';

interface Script {
  code: Buffer;
  hash: string;
  etag: string;
}

/** The newest modification time of the storefront's sources, 0 when they are not there (an image without them). */
async function sourcesChangedAt(): Promise<number> {
  try {
    const dir = path.join(ROOT, 'src');
    const times = await Promise.all((await readdir(dir)).map(async (f) => (await stat(path.join(dir, f))).mtimeMs));
    return Math.max(0, ...times);
  } catch {
    return 0;
  }
}

async function load(): Promise<Script> {
  let code: Buffer | undefined;
  try {
    const built = await stat(BUILT);
    if (built.mtimeMs >= (await sourcesChangedAt())) code = await readFile(BUILT);
  } catch {
    // Not built yet: built below.
  }
  if (!code) {
    const builder = (await import(path.join(ROOT, 'build.ts'))) as { buildOfferScript(): Promise<{ code: Buffer }> };
    code = (await builder.buildOfferScript()).code;
  }
  const digest = createHash('sha256').update(code).digest();
  return { code, hash: digest.toString('hex').slice(0, 16), etag: `"${digest.toString('base64url').slice(0, 27)}"` };
}

let script: Promise<Script> | undefined;
/** The script's bytes and names, read (or built) once per process. */
export function offerScript(): Promise<Script> {
  script ??= load().catch((err: unknown) => {
    script = undefined;
    throw err;
  });
  return script;
}

export const storefrontScript: RequestHandler = (req, res, next) => {
  const match = PATH.exec(req.path);
  if (!match || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
  offerScript().then((s) => {
    const hashed = match[1];
    if (hashed !== undefined && hashed !== s.hash) return next();
    res.setHeader('content-type', 'text/javascript; charset=utf-8');
    res.setHeader(
      'cache-control',
      hashed === undefined ? 'public, max-age=300' : 'public, max-age=31536000, immutable',
    );
    res.setHeader('etag', s.etag);
    // Any storefront may load it, with `crossorigin` for Subresource Integrity.
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('cross-origin-resource-policy', 'cross-origin');
    if (ifNoneMatchMatches(req.headers['if-none-match'], s.etag)) return void res.status(304).end();
    res.status(200).end(req.method === 'HEAD' ? undefined : s.code);
  }, next);
};
