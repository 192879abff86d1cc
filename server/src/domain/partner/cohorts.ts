import type {
  PricingType,
  TCohortPriceSet,
  TCohortPriceSetCreateBody,
  TCohortPriceSetUpdateBody,
  TCohortWidgetConfig,
  TCohortWidgetConfigCreateBody,
  TCohortWidgetConfigUpdateBody,
  WidgetType,
} from '@protection-service/contract';
import { announceStoreChange } from '../../cache/changes';
import type { Db } from '../../db/database';
import { newId } from '../../lib/ids';
import { RULE_SET_COLUMNS, type RuleSetRow, renderRuleSet, ruleSetChanges, storedRules } from './pricing';
import { renderWidget, WIDGET_COLUMNS, type WidgetRow, widgetChanges } from './widgets';

/**
 * Cohort (A/B) price sets and widget configs of a partner context (D28). The caller has
 * established that the context is the app's own live one (./contexts.ts `ownContext`);
 * every function here is scoped by that context id, and by the types the token may read or
 * write (D16): a set of another type answers like a missing one.
 *
 * One set per (context, variantKey, type): a duplicate is a CohortConflictError (409).
 * `type` and `variantKey` are immutable: repeating them unchanged is fine, a different value
 * is an ImmutableFieldError (400). Every write announces the store's change (D29).
 */

export class CohortConflictError extends Error {}
export class ImmutableFieldError extends Error {
  constructor(readonly field: 'type' | 'variantKey') {
    super(`${field} cannot be changed`);
  }
}

export interface ContextRef {
  id: string;
  storeId: string;
}

export const PRICE_SET_COLUMNS = [...RULE_SET_COLUMNS, 'contextId', 'variantKey', 'createdAt'] as const;
const COHORT_WIDGET_COLUMNS = [...WIDGET_COLUMNS, 'contextId', 'variantKey', 'createdAt'] as const;

type PriceSetRow = RuleSetRow & { contextId: string; variantKey: string; createdAt: Date };
type CohortWidgetRow = WidgetRow & { contextId: string; variantKey: string; createdAt: Date };

function renderPriceSet(row: PriceSetRow): TCohortPriceSet {
  return {
    ...renderRuleSet(row),
    contextId: row.contextId,
    variantKey: row.variantKey,
    createdAt: row.createdAt.toISOString(),
  };
}

function renderCohortWidget(row: CohortWidgetRow): TCohortWidgetConfig {
  return {
    ...renderWidget(row),
    contextId: row.contextId,
    variantKey: row.variantKey,
    createdAt: row.createdAt.toISOString(),
  };
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

function checkImmutable(
  current: { type: string; variantKey: string },
  change: { type?: string | undefined; variantKey?: string | undefined },
) {
  if (change.type !== undefined && change.type !== current.type) throw new ImmutableFieldError('type');
  if (change.variantKey !== undefined && change.variantKey !== current.variantKey) {
    throw new ImmutableFieldError('variantKey');
  }
}

/* ---------------------------------------------------------------- price sets */

export async function createPriceSet(
  db: Db,
  context: ContextRef,
  body: TCohortPriceSetCreateBody,
  applicationId: string,
): Promise<TCohortPriceSet> {
  try {
    return await db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('cohortPriceSets')
        .values({
          id: newId('ps'),
          contextId: context.id,
          variantKey: body.variantKey,
          type: body.type,
          automaticallyAddToCart: body.automaticallyAddToCart,
          autoAddStateBlockList: body.autoAddStateBlockList,
          autoAddCountryBlockList: body.autoAddCountryBlockList,
          rules: JSON.stringify(storedRules(body.rules, [])),
          updatedByApplicationId: applicationId,
        })
        .returning(PRICE_SET_COLUMNS)
        .executeTakeFirstOrThrow();
      await announceStoreChange(trx, context.storeId);
      return renderPriceSet(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new CohortConflictError(`a ${body.type} price set exists already for variantKey ${body.variantKey}`);
    }
    throw err;
  }
}

export async function listPriceSets(
  db: Db,
  contextId: string,
  types: readonly PricingType[],
  variantKey: string | undefined,
): Promise<TCohortPriceSet[]> {
  if (types.length === 0) return [];
  let q = db
    .selectFrom('cohortPriceSets')
    .select(PRICE_SET_COLUMNS)
    .where('contextId', '=', contextId)
    .where('type', 'in', types);
  if (variantKey !== undefined) q = q.where('variantKey', '=', variantKey);
  const rows = await q.orderBy('variantKey').orderBy('type').execute();
  return rows.map(renderPriceSet);
}

export async function getPriceSet(
  db: Db,
  contextId: string,
  priceSetId: string,
  types: readonly PricingType[],
): Promise<TCohortPriceSet | undefined> {
  if (types.length === 0) return undefined;
  const row = await db
    .selectFrom('cohortPriceSets')
    .select(PRICE_SET_COLUMNS)
    .where('id', '=', priceSetId)
    .where('contextId', '=', contextId)
    .where('type', 'in', types)
    .executeTakeFirst();
  return row && renderPriceSet(row);
}

export async function updatePriceSet(
  db: Db,
  context: ContextRef,
  priceSetId: string,
  types: readonly PricingType[],
  change: TCohortPriceSetUpdateBody,
  applicationId: string,
): Promise<TCohortPriceSet | undefined> {
  if (types.length === 0) return undefined;
  return db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('cohortPriceSets')
      .select(['type', 'variantKey', 'rules'])
      .where('id', '=', priceSetId)
      .where('contextId', '=', context.id)
      .where('type', 'in', types)
      .forUpdate()
      .executeTakeFirst();
    if (!current) return undefined;
    checkImmutable(current, change);
    const row = await trx
      .updateTable('cohortPriceSets')
      .set(ruleSetChanges(change, current.rules, applicationId))
      .where('id', '=', priceSetId)
      .returning(PRICE_SET_COLUMNS)
      .executeTakeFirstOrThrow();
    await announceStoreChange(trx, context.storeId);
    return renderPriceSet(row);
  });
}

/** Hard delete (spec). False when missing or of a type the token cannot write. */
export async function deletePriceSet(
  db: Db,
  context: ContextRef,
  priceSetId: string,
  types: readonly PricingType[],
): Promise<boolean> {
  if (types.length === 0) return false;
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('cohortPriceSets')
      .where('id', '=', priceSetId)
      .where('contextId', '=', context.id)
      .where('type', 'in', types)
      .returning('id')
      .executeTakeFirst();
    if (row) await announceStoreChange(trx, context.storeId);
    return row !== undefined;
  });
}

/* ---------------------------------------------------------------- widget configs */

export async function createCohortWidget(
  db: Db,
  context: ContextRef,
  body: TCohortWidgetConfigCreateBody,
  applicationId: string,
): Promise<TCohortWidgetConfig> {
  try {
    return await db.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('cohortWidgetConfigs')
        .values({
          id: newId('cw'),
          contextId: context.id,
          variantKey: body.variantKey,
          type: body.type,
          status: body.status,
          variant: body.variant ?? null,
          name: body.name ?? null,
          config: JSON.stringify(body.config),
          updatedByApplicationId: applicationId,
        })
        .returning(COHORT_WIDGET_COLUMNS)
        .executeTakeFirstOrThrow();
      await announceStoreChange(trx, context.storeId);
      return renderCohortWidget(row);
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new CohortConflictError(`a ${body.type} widget config exists already for variantKey ${body.variantKey}`);
    }
    throw err;
  }
}

export async function listCohortWidgets(
  db: Db,
  contextId: string,
  types: readonly WidgetType[],
  variantKey: string | undefined,
): Promise<TCohortWidgetConfig[]> {
  if (types.length === 0) return [];
  let q = db
    .selectFrom('cohortWidgetConfigs')
    .select(COHORT_WIDGET_COLUMNS)
    .where('contextId', '=', contextId)
    .where('type', 'in', types);
  if (variantKey !== undefined) q = q.where('variantKey', '=', variantKey);
  const rows = await q.orderBy('variantKey').orderBy('type').execute();
  return rows.map(renderCohortWidget);
}

export async function getCohortWidget(
  db: Db,
  contextId: string,
  widgetConfigId: string,
  types: readonly WidgetType[],
): Promise<TCohortWidgetConfig | undefined> {
  if (types.length === 0) return undefined;
  const row = await db
    .selectFrom('cohortWidgetConfigs')
    .select(COHORT_WIDGET_COLUMNS)
    .where('id', '=', widgetConfigId)
    .where('contextId', '=', contextId)
    .where('type', 'in', types)
    .executeTakeFirst();
  return row && renderCohortWidget(row);
}

export async function updateCohortWidget(
  db: Db,
  context: ContextRef,
  widgetConfigId: string,
  types: readonly WidgetType[],
  change: TCohortWidgetConfigUpdateBody,
  applicationId: string,
): Promise<TCohortWidgetConfig | undefined> {
  if (types.length === 0) return undefined;
  return db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('cohortWidgetConfigs')
      .select(['type', 'variantKey'])
      .where('id', '=', widgetConfigId)
      .where('contextId', '=', context.id)
      .where('type', 'in', types)
      .forUpdate()
      .executeTakeFirst();
    if (!current) return undefined;
    checkImmutable(current, change);
    const row = await trx
      .updateTable('cohortWidgetConfigs')
      .set(widgetChanges(change, applicationId))
      .where('id', '=', widgetConfigId)
      .returning(COHORT_WIDGET_COLUMNS)
      .executeTakeFirstOrThrow();
    await announceStoreChange(trx, context.storeId);
    return renderCohortWidget(row);
  });
}

export async function deleteCohortWidget(
  db: Db,
  context: ContextRef,
  widgetConfigId: string,
  types: readonly WidgetType[],
): Promise<boolean> {
  if (types.length === 0) return false;
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .deleteFrom('cohortWidgetConfigs')
      .where('id', '=', widgetConfigId)
      .where('contextId', '=', context.id)
      .where('type', 'in', types)
      .returning('id')
      .executeTakeFirst();
    if (row) await announceStoreChange(trx, context.storeId);
    return row !== undefined;
  });
}
