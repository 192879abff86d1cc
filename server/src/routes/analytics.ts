import type { Contract } from '@protection-service/contract';
import { analyticsSeries, analyticsSummary } from '../domain/analytics/summary';
import { storeOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

/** The store's figures (D52); the store comes from the token, so a test token reads its test store only (D45). */
export function analyticsHandlers({ db }: RouteContext): GroupHandlers<Contract['analytics']> {
  return {
    async summary({ query, req }) {
      return { status: 200, body: { data: await analyticsSummary(db, storeOf(req), query) } };
    },
    async series({ query, req }) {
      return { status: 200, body: { data: await analyticsSeries(db, storeOf(req), query) } };
    },
  };
}
