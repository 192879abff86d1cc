import type { Contract } from '@protection-service/contract';
import { auditActorOf } from '../domain/audit/record';
import { listRuleSets, updateRuleSet } from '../domain/partner/pricing';
import { actorOf, pricingTypesOf, tokenOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

/** Merchant pricing rule sets (spec "Pricing rules"): per-type scopes, filtered and hidden. */
export function pricingHandlers({ db }: RouteContext): GroupHandlers<Contract['pricing']> {
  return {
    async list({ req }) {
      const data = await listRuleSets(db, tokenOf(req).storeId, pricingTypesOf(req, 'read'));
      return { status: 200, body: { data } };
    },
    async update({ params, body, req }) {
      const token = tokenOf(req);
      const updated = await updateRuleSet(
        db,
        token.storeId,
        params.ruleSetId,
        pricingTypesOf(req, 'update'),
        body,
        // D49: a staff member's write leaves updatedByApplicationId null, as the dashboard's.
        actorOf(req).clientId,
        auditActorOf(actorOf(req)),
      );
      return { status: 200, body: { data: [updated] } };
    },
  };
}
