import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * Builds `<protection-offer>` (D55) into one minified file, `dist/offer.js`, the bytes the
 * service serves at `/widget/v1/offer.js` and at their content-hashed name. Fails above
 * 10,000 bytes gzip: Shopify's budget for an app block's script.
 */
export const GZIP_BUDGET = 10_000;
const HERE = import.meta.dirname;
export const OFFER_SCRIPT = path.join(HERE, 'dist', 'offer.js');

export interface BuiltScript {
  code: Buffer;
  gzipBytes: number;
  /** The first 16 hex digits of the bytes' SHA-256: the immutable name's part. */
  hash: string;
}

export async function buildOfferScript(): Promise<BuiltScript> {
  const result = await build({
    entryPoints: [path.join(HERE, 'src', 'offer.ts')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022', 'chrome111', 'safari16.4', 'firefox128'],
    legalComments: 'none',
    write: false,
  });
  const code = Buffer.from(result.outputFiles[0]!.contents);
  const gzipBytes = gzipSync(code, { level: 9 }).length;
  if (gzipBytes > GZIP_BUDGET) {
    throw new Error(`offer.js weighs ${gzipBytes} bytes gzip, over the ${GZIP_BUDGET}-byte budget (D55)`);
  }
  mkdirSync(path.dirname(OFFER_SCRIPT), { recursive: true });
  writeFileSync(OFFER_SCRIPT, code);
  return { code, gzipBytes, hash: createHash('sha256').update(code).digest('hex').slice(0, 16) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.join(HERE, 'build.ts')) {
  const built = await buildOfferScript();
  console.log(`storefront: dist/offer.js ${built.code.length} bytes, ${built.gzipBytes} gzip, offer.${built.hash}.js`);
}
