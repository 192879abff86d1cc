import type { Contract, TInsuranceQuote } from '@protection-service/contract';
import type { AppDeps } from '../app';
import { readInsurance } from '../domain/public-reads';
import { etagOf, ifNoneMatchMatches } from '../http/conditional';
import { notFound } from '../http/errors';
import { TtlCache } from '../http/ttl-cache';
import type { GroupHandlers } from './index';

/** D29: shoppers' browsers may reuse an answer for a minute. */
const CACHE_CONTROL = 'public, max-age=60';
/** In-process lifetime: short enough that any write is visible within seconds everywhere. */
export const PUBLIC_CACHE_TTL_MS = 5_000;

interface Cached {
  json: string;
  etag: string;
  body: TInsuranceQuote | null;
}

export function publicHandlers({ db }: AppDeps): GroupHandlers<Contract['public']> {
  const cache = new TtlCache<Cached>(PUBLIC_CACHE_TTL_MS);

  return {
    async getInsurance({ query, headers, res }) {
      const key = JSON.stringify([query.store_url ?? null, query.storeId ?? null, query.subtotal ?? null]);
      let entry = cache.get(key);
      if (!entry) {
        const body = await readInsurance(db, query, query.subtotal);
        const json = JSON.stringify(body);
        entry = { json, etag: etagOf(json), body };
        cache.set(key, entry);
      }
      if (!entry.body) throw notFound('store not found');
      res.setHeader('cache-control', CACHE_CONTROL);
      res.setHeader('etag', entry.etag);
      if (ifNoneMatchMatches(headers['if-none-match'], entry.etag)) return { status: 304, body: undefined };
      return { status: 200, body: entry.body };
    },
  };
}
