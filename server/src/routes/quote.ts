import type { Contract } from '@protection-service/contract';
import { createQuote } from '../domain/partner/pricing-source';
import { actorOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

/** POST /v2/quote (D31): stateless, priced in exact decimals (D38). */
export function quoteHandlers({ db, pricingCache }: RouteContext): GroupHandlers<Contract['quote']> {
  return {
    async create({ body, req }) {
      // D49: a staff token has no app, so no cohort: it prices from the merchant rule set.
      const { storeId, clientId } = actorOf(req);
      return { status: 201, body: { data: await createQuote(db, pricingCache, { storeId, clientId }, body) } };
    },
  };
}
