import { type Contract, ZInsuranceQuote } from '@protection-service/contract';
import { readInsurance } from '../domain/public-reads';
import { ifNoneMatchMatches } from '../http/conditional';
import { notFound } from '../http/errors';
import { PUBLIC_CACHE_CONTROL } from '../http/public-cache';
import type { GroupHandlers, RouteContext } from './index';

export function publicHandlers({ db, publicCache }: RouteContext): GroupHandlers<Contract['public']> {
  return {
    async getInsurance({ query, headers, req, res }) {
      const found = await readInsurance(db, query, query.subtotal);
      if (!found) throw notFound('store not found');
      // Parsed once per cache fill so the remembered bytes are exactly what the contract says.
      const body = ZInsuranceQuote.parse(found);
      const etag = publicCache.remember(req.url, req.headers, body);
      res.setHeader('cache-control', PUBLIC_CACHE_CONTROL);
      res.setHeader('etag', etag);
      if (ifNoneMatchMatches(headers['if-none-match'], etag)) return { status: 304, body: undefined };
      return { status: 200, body };
    },
  };
}
