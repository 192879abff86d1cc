import type {
  PricingType,
  TPriceRule,
  TPriceTerms,
  TPricingRuleSet,
  TPricingRuleSetUpdateBody,
} from '@protection-service/contract';
import { announceStoreChange } from '../../cache/changes';
import type { Db } from '../../db/database';
import type { PriceRuleRow } from '../../db/schema';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';
import { type AuditActor, recordAudit } from '../audit/record';

/** D29 terms: absent parts are null, `operator` always present (AND by default). */
export function renderTerms(terms: PriceRuleRow['terms']): TPriceTerms {
  return {
    paidBy: terms.paidBy ?? null,
    operator: terms.operator ?? 'AND',
    customer: terms.customer ?? null,
    brand: terms.brand ?? null,
  };
}

export const byMin = (a: PriceRuleRow, b: PriceRuleRow) => a.min - b.min;

export const RULE_SET_COLUMNS = [
  'id',
  'type',
  'automaticallyAddToCart',
  'autoAddStateBlockList',
  'autoAddCountryBlockList',
  'rules',
  'updatedByApplicationId',
  'updatedAt',
] as const;

export type RuleSetRow = {
  id: string;
  type: PricingType;
  automaticallyAddToCart: boolean;
  autoAddStateBlockList: string[];
  autoAddCountryBlockList: string[];
  rules: PriceRuleRow[];
  updatedByApplicationId: string | null;
  updatedAt: Date;
};

export function renderRuleSet(row: RuleSetRow): TPricingRuleSet {
  return {
    id: row.id,
    type: row.type,
    automaticallyAddToCart: row.automaticallyAddToCart,
    autoAddStateBlockList: row.autoAddStateBlockList,
    autoAddCountryBlockList: row.autoAddCountryBlockList,
    rules: [...row.rules].sort(byMin).map((r) => ({
      id: r.id,
      min: r.min,
      max: r.max,
      minValue: r.min,
      maxValue: r.max,
      terms: renderTerms(r.terms),
    })),
    updatedByApplicationId: row.updatedByApplicationId,
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The store's merchant rule sets of the given types (the ones the caller may read). */
export async function listRuleSets(db: Db, storeId: string, types: readonly PricingType[]): Promise<TPricingRuleSet[]> {
  if (types.length === 0) return [];
  const rows = await db
    .selectFrom('pricingRuleSets')
    .select(RULE_SET_COLUMNS)
    .where('storeId', '=', storeId)
    .where('type', 'in', types)
    .orderBy('type')
    .execute();
  return rows.map(renderRuleSet);
}

/** Stored rules from rules on write: new ids for new rules; a given id must be one of the set's. */
export function storedRules(input: TPriceRule[], existing: PriceRuleRow[]): PriceRuleRow[] {
  const known = new Set(existing.map((r) => r.id));
  return input.map((r) => {
    if (r.id !== undefined && !known.has(r.id)) throw refuse.invalidAt('body.rules', `unknown rule id: ${r.id}`);
    const terms: PriceRuleRow['terms'] = {};
    if (r.terms.paidBy !== undefined) terms.paidBy = r.terms.paidBy;
    if (r.terms.operator !== undefined) terms.operator = r.terms.operator;
    if (r.terms.customer) terms.customer = r.terms.customer;
    if (r.terms.brand) terms.brand = r.terms.brand;
    return { id: r.id ?? newId('ru'), min: r.min, max: r.max, terms };
  });
}

/**
 * The columns a sparse rule-set update writes (merchant sets and cohort price sets alike):
 * omitted fields keep their values, `rules` replaces the list (ids checked against `current`).
 */
export function ruleSetChanges(
  change: TPricingRuleSetUpdateBody,
  current: PriceRuleRow[],
  /** The writing app; null for a staff member's write (D49). */
  applicationId: string | null,
): {
  automaticallyAddToCart?: boolean;
  autoAddStateBlockList?: string[];
  autoAddCountryBlockList?: string[];
  rules?: string;
  updatedByApplicationId: string | null;
  updatedAt: Date;
} {
  return {
    ...(change.automaticallyAddToCart !== undefined ? { automaticallyAddToCart: change.automaticallyAddToCart } : {}),
    ...(change.autoAddStateBlockList !== undefined ? { autoAddStateBlockList: change.autoAddStateBlockList } : {}),
    ...(change.autoAddCountryBlockList !== undefined
      ? { autoAddCountryBlockList: change.autoAddCountryBlockList }
      : {}),
    ...(change.rules !== undefined ? { rules: JSON.stringify(storedRules(change.rules, current)) } : {}),
    updatedByApplicationId: applicationId,
    updatedAt: new Date(),
  };
}

const RULE_SET_NOT_FOUND = 'rule set not found';

/**
 * Updates one merchant rule set (spec PUT /v2/pricing/rules/:id): omitted fields keep their
 * values, `rules` replaces the list. Refused alike (404, existence hidden) when the set does
 * not exist in this store or its type is not among `writableTypes`.
 */
export async function updateRuleSet(
  db: Db,
  storeId: string,
  ruleSetId: string,
  writableTypes: readonly PricingType[],
  change: TPricingRuleSetUpdateBody,
  applicationId: string | null,
  actor: AuditActor,
): Promise<TPricingRuleSet> {
  if (writableTypes.length === 0) throw refuse.missing(RULE_SET_NOT_FOUND);
  return transact(db, async (trx) => {
    const current = await trx
      .selectFrom('pricingRuleSets')
      .select(RULE_SET_COLUMNS)
      .where('id', '=', ruleSetId)
      .where('storeId', '=', storeId)
      .where('type', 'in', writableTypes)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw refuse.missing(RULE_SET_NOT_FOUND);
    const row = await trx
      .updateTable('pricingRuleSets')
      .set(ruleSetChanges(change, current.rules, applicationId))
      .where('id', '=', ruleSetId)
      .returning(RULE_SET_COLUMNS)
      .executeTakeFirstOrThrow();
    await announceStoreChange(trx, storeId);
    const after = renderRuleSet(row);
    await recordAudit(trx, {
      store: storeId,
      actor,
      action: 'pricing.updated',
      target: { type: 'pricing_rule_set', id: ruleSetId },
      changes: { before: renderRuleSet(current), after },
    });
    return after;
  });
}
