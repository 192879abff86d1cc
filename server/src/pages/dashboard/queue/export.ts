import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebStream } from 'node:stream/web';
import { type FetchMiddleware, unwrap } from '@protection-service/sdk';
import type { RequestHandler } from 'express';
import { pageHeaders } from '../../html';
import { type Dashboard, notFound } from '../handlers';
import { DASHBOARD_PATH } from '../paths';
import { listQuery, queueView } from './load';

export const EXPORT_PATH = `${DASHBOARD_PATH}/stores/:storeId/claims/export`;

/**
 * `GET …/claims/export`: the queue's current view as CSV (D52), through the SDK with the
 * person's staff token and streamed through as the API sends it, never held whole. The SDK
 * would read the answer as text; this call's own middleware takes a 200's body for the page
 * instead, and frees it from the SDK's call timeout once the headers have come (an export of
 * 100,000 rows may take longer), ending it when the browser goes away. A refusal goes to the
 * SDK as usual and becomes a page.
 */
export function exportClaimsPage(dashboard: Dashboard): RequestHandler {
  return dashboard.page(async ({ req, res, session, store }) => {
    const { first: _first, after: _after, ...query } = listQuery(queueView(req));
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    let csv: globalThis.Response | undefined;
    const take: FetchMiddleware = (next) => async (url, init) => {
      const headersWait = init.signal;
      const stop = () => gone.abort(headersWait?.reason);
      headersWait?.addEventListener('abort', stop);
      const answer = await next(url, { ...init, signal: gone.signal });
      headersWait?.removeEventListener('abort', stop);
      if (answer.status !== 200 || !answer.body) return answer;
      csv = answer;
      return new Response(null, { status: 200 });
    };
    const api = await dashboard.staff.open(req, session, store, [take]);
    if (!api) return notFound(res, session);
    unwrap(await api.client.claims.export({ query }));
    if (!csv?.body) throw new Error('the export answered no body');
    // A download is a page response too (D40): never stored, framed or indexed.
    pageHeaders(res);
    res.status(200);
    for (const name of ['content-type', 'content-disposition']) {
      const value = csv.headers.get(name);
      if (value) res.setHeader(name, value);
    }
    // A failure after the first byte cannot become a page: the connection is cut, as the API's.
    await pipeline(Readable.fromWeb(csv.body as WebStream<Uint8Array>), res).catch(() => res.destroy());
  });
}
