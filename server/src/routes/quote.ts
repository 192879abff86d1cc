import type { Contract } from '@protection-service/contract';
import { createQuote } from '../domain/partner/pricing-source';
import { tokenOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

/** POST /v2/quote (D31): stateless, priced in exact decimals (D38). */
export function quoteHandlers({ db, pricingCache }: RouteContext): GroupHandlers<Contract['quote']> {
  return {
    async create({ body, req }) {
      const { storeId, clientId } = tokenOf(req);
      return { status: 201, body: { data: await createQuote(db, pricingCache, { storeId, clientId }, body) } };
    },
  };
}
