import type { Contract } from '@protection-service/contract';
import { listWidgetConfigs, updateWidgetConfig } from '../domain/partner/widgets';
import { actorOf, tokenOf, widgetTypesOf } from '../http/caller';
import type { GroupHandlers, RouteContext } from './context';

/** Merchant widget configs (spec "Widget config"): per-type scopes, filtered and hidden. */
export function widgetHandlers({ db }: RouteContext): GroupHandlers<Contract['widgets']> {
  return {
    async list({ req }) {
      const data = await listWidgetConfigs(db, tokenOf(req).storeId, widgetTypesOf(req, 'read'));
      return { status: 200, body: { data } };
    },
    async update({ params, body, req }) {
      const token = tokenOf(req);
      const updated = await updateWidgetConfig(
        db,
        token.storeId,
        params.widgetConfigId,
        widgetTypesOf(req, 'update'),
        body,
        // D49: a staff member's write leaves updatedByApplicationId null, as the dashboard's.
        actorOf(req).clientId,
      );
      return { status: 200, body: { data: updated } };
    },
  };
}
