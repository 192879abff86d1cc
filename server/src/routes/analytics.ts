import type { Contract } from '@protection-service/contract';
import { offerResults } from '../domain/analytics/offers';
import { analyticsSeries, analyticsSummary } from '../domain/analytics/summary';
import { ownContext } from '../domain/partner/contexts';
import { appTokenOf, storeOf } from '../http/caller';
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
    async offers({ query, req }) {
      return { status: 200, body: { data: await offerResults(db, storeOf(req), query) } };
    },
    /** D55: the app's own cohorts only; another app's context is refused like a missing one (D7). */
    async offerResults({ params, query, req }) {
      const { storeId, clientId } = appTokenOf(req);
      await ownContext(db, storeId, clientId, params.contextId);
      return { status: 200, body: { data: await offerResults(db, storeId, query, clientId) } };
    },
  };
}
