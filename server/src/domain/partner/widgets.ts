import type { TWidgetConfig, TWidgetConfigUpdateBody, WidgetType } from '@protection-service/contract';
import { announceStoreChange } from '../../cache/changes';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { refuse } from '../../lib/refusal';

export const WIDGET_COLUMNS = [
  'id',
  'type',
  'status',
  'variant',
  'name',
  'config',
  'updatedByApplicationId',
  'updatedAt',
] as const;

export type WidgetRow = {
  id: string;
  type: WidgetType;
  status: string;
  variant: string | null;
  name: string | null;
  config: Record<string, unknown>;
  updatedByApplicationId: string | null;
  updatedAt: Date;
};

/** A merchant widget config; `customizationValues` is the legacy read-only mirror of `config`. */
export function renderWidget(row: WidgetRow): TWidgetConfig {
  return {
    id: row.id,
    type: row.type,
    status: row.status as TWidgetConfig['status'],
    variant: row.variant,
    name: row.name,
    config: row.config,
    customizationValues: row.config,
    updatedByApplicationId: row.updatedByApplicationId,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The store's merchant widget configs of the given types (the ones the caller may read). */
export async function listWidgetConfigs(
  db: Db,
  storeId: string,
  types: readonly WidgetType[],
): Promise<TWidgetConfig[]> {
  if (types.length === 0) return [];
  const rows = await db
    .selectFrom('widgetConfigs')
    .select(WIDGET_COLUMNS)
    .where('storeId', '=', storeId)
    .where('type', 'in', types)
    .orderBy('type')
    .execute();
  return rows.map(renderWidget);
}

/** The columns a sparse widget-config update writes (merchant and cohort configs alike). */
export function widgetChanges(
  change: TWidgetConfigUpdateBody,
  /** The writing app; null for a staff member's write (D49). */
  applicationId: string | null,
): {
  status?: string;
  variant?: string;
  name?: string;
  config?: string;
  updatedByApplicationId: string | null;
  updatedAt: Date;
} {
  return {
    ...(change.status !== undefined ? { status: change.status } : {}),
    ...(change.variant !== undefined ? { variant: change.variant } : {}),
    ...(change.name !== undefined ? { name: change.name } : {}),
    ...(change.config !== undefined ? { config: JSON.stringify(change.config) } : {}),
    updatedByApplicationId: applicationId,
    updatedAt: new Date(),
  };
}

const WIDGET_CONFIG_NOT_FOUND = 'widget config not found';

/**
 * Updates one merchant widget config (spec PUT /v2/widget/config/:id); omitted fields keep
 * their values. Refused alike (404, existence hidden) when it does not exist in this store or
 * its type is not among `writableTypes`.
 */
export async function updateWidgetConfig(
  db: Db,
  storeId: string,
  widgetConfigId: string,
  writableTypes: readonly WidgetType[],
  change: TWidgetConfigUpdateBody,
  applicationId: string | null,
): Promise<TWidgetConfig> {
  if (writableTypes.length === 0) throw refuse.missing(WIDGET_CONFIG_NOT_FOUND);
  return transact(db, async (trx) => {
    const row = await trx
      .updateTable('widgetConfigs')
      .set(widgetChanges(change, applicationId))
      .where('id', '=', widgetConfigId)
      .where('storeId', '=', storeId)
      .where('type', 'in', writableTypes)
      .returning(WIDGET_COLUMNS)
      .executeTakeFirst();
    if (!row) throw refuse.missing(WIDGET_CONFIG_NOT_FOUND);
    await announceStoreChange(trx, storeId);
    return renderWidget(row);
  });
}
