import type {
  PricingType,
  TCohortPriceSet,
  TCohortPriceSetCreateBody,
  TCohortPriceSetUpdateBody,
  TCohortWidgetConfig,
  TCohortWidgetConfigCreateBody,
  TCohortWidgetConfigUpdateBody,
} from '@protection-service/contract';
import { announceStoreChange } from '../../cache/changes';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';
import { RULE_SET_COLUMNS, type RuleSetRow, renderRuleSet, ruleSetChanges, storedRules } from './pricing';
import { renderWidget, WIDGET_COLUMNS, type WidgetRow, widgetChanges } from './widgets';

/**
 * Cohort (A/B) price sets and widget configs of a partner context (D28). The caller has
 * established that the context is the app's own live one (./contexts.ts `ownContext`, which
 * refuses any other); every function here is scoped by that context id, and by the types the
 * token may read or write (D16): a set of another type is refused like a missing one.
 *
 * One set per (context, variantKey, type): a duplicate is refused as a conflict (409).
 * `type` and `variantKey` are immutable: repeating them unchanged is fine, a different value
 * is refused as invalid (400). Every write announces the store's change (D29).
 */

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
  for (const field of ['type', 'variantKey'] as const) {
    const value = change[field];
    if (value !== undefined && value !== current[field])
      throw refuse.invalidAt(`body.${field}`, `${field} cannot be changed`);
  }
}

/**
 * What differs between the two kinds of cohort entry; everything else (scoping by context and
 * type, the unique (context, variantKey, type), immutable fields, announcing the change) is
 * written once in `CohortEntries`.
 */
interface CohortKind<Row, Out, Create extends { type: string; variantKey: string }, Update, Current> {
  /** Both tables share id, context_id, variant_key, type and updated_by_application_id. */
  table: 'cohortPriceSets' | 'cohortWidgetConfigs';
  noun: string;
  idPrefix: string;
  columns: readonly string[];
  /** The columns an update reads before it writes (type and variantKey at least). */
  current: readonly string[];
  values(body: Create): Record<string, unknown>;
  changes(change: Update, current: Current, applicationId: string): Record<string, unknown>;
  render(row: Row): Out;
}

/**
 * Create, list, get, update and delete of one kind of cohort entry. The table is one of two
 * with the same scoping columns; Kysely is told it is the price-set table only so that those
 * shared columns type-check — the columns read and written come from `kind`.
 */
export class CohortEntries<Row, Out, Create extends { type: string; variantKey: string }, Update, Current> {
  private readonly table: 'cohortPriceSets';
  private readonly columns: typeof PRICE_SET_COLUMNS;

  constructor(private readonly kind: CohortKind<Row, Out, Create, Update, Current>) {
    this.table = kind.table as 'cohortPriceSets';
    this.columns = kind.columns as typeof PRICE_SET_COLUMNS;
  }

  private render(row: unknown): Out {
    return this.kind.render(row as Row);
  }

  /** A missing entry, or one of a type the token may not use (D16). */
  private missing() {
    return refuse.missing(`${this.kind.noun} not found`);
  }

  async create(db: Db, context: ContextRef, body: Create, applicationId: string): Promise<Out> {
    try {
      return await transact(db, async (trx) => {
        const row = await trx
          .insertInto(this.table)
          .values({
            id: newId(this.kind.idPrefix),
            contextId: context.id,
            variantKey: body.variantKey,
            type: body.type,
            updatedByApplicationId: applicationId,
            ...this.kind.values(body),
          } as never)
          .returning(this.columns)
          .executeTakeFirstOrThrow();
        await announceStoreChange(trx, context.storeId);
        return this.render(row);
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw refuse.conflict(`a ${body.type} ${this.kind.noun} exists already for variantKey ${body.variantKey}`);
      }
      throw err;
    }
  }

  async list(db: Db, contextId: string, types: readonly string[], variantKey: string | undefined): Promise<Out[]> {
    if (types.length === 0) return [];
    let q = db
      .selectFrom(this.table)
      .select(this.columns)
      .where('contextId', '=', contextId)
      .where('type', 'in', types as PricingType[]);
    if (variantKey !== undefined) q = q.where('variantKey', '=', variantKey);
    const rows = await q.orderBy('variantKey').orderBy('type').execute();
    return rows.map((row) => this.render(row));
  }

  async get(db: Db, contextId: string, id: string, types: readonly string[]): Promise<Out> {
    if (types.length === 0) throw this.missing();
    const row = await db
      .selectFrom(this.table)
      .select(this.columns)
      .where('id', '=', id)
      .where('contextId', '=', contextId)
      .where('type', 'in', types as PricingType[])
      .executeTakeFirst();
    if (!row) throw this.missing();
    return this.render(row);
  }

  async update(
    db: Db,
    context: ContextRef,
    id: string,
    types: readonly string[],
    change: Update & { type?: string | undefined; variantKey?: string | undefined },
    applicationId: string,
  ): Promise<Out> {
    if (types.length === 0) throw this.missing();
    return transact(db, async (trx) => {
      const current = (await trx
        .selectFrom(this.table)
        .select(this.kind.current as ['type', 'variantKey'])
        .where('id', '=', id)
        .where('contextId', '=', context.id)
        .where('type', 'in', types as PricingType[])
        .forUpdate()
        .executeTakeFirst()) as (Current & { type: string; variantKey: string }) | undefined;
      if (!current) throw this.missing();
      checkImmutable(current, change);
      const row = await trx
        .updateTable(this.table)
        .set(this.kind.changes(change, current, applicationId) as never)
        .where('id', '=', id)
        .returning(this.columns)
        .executeTakeFirstOrThrow();
      await announceStoreChange(trx, context.storeId);
      return this.render(row);
    });
  }

  /** Hard delete (spec). Refused when missing or of a type the token cannot write. */
  async remove(db: Db, context: ContextRef, id: string, types: readonly string[]): Promise<void> {
    if (types.length === 0) throw this.missing();
    return transact(db, async (trx) => {
      const row = await trx
        .deleteFrom(this.table)
        .where('id', '=', id)
        .where('contextId', '=', context.id)
        .where('type', 'in', types as PricingType[])
        .returning('id')
        .executeTakeFirst();
      if (!row) throw this.missing();
      await announceStoreChange(trx, context.storeId);
    });
  }
}

/** Cohort price sets (D28): rule sets of a variant key, priced from by quotes and public reads. */
export const cohortPriceSets = new CohortEntries<
  PriceSetRow,
  TCohortPriceSet,
  TCohortPriceSetCreateBody,
  TCohortPriceSetUpdateBody,
  { rules: PriceSetRow['rules'] }
>({
  table: 'cohortPriceSets',
  noun: 'price set',
  idPrefix: 'ps',
  columns: PRICE_SET_COLUMNS,
  current: ['type', 'variantKey', 'rules'],
  values: (body) => ({
    automaticallyAddToCart: body.automaticallyAddToCart,
    autoAddStateBlockList: body.autoAddStateBlockList,
    autoAddCountryBlockList: body.autoAddCountryBlockList,
    rules: JSON.stringify(storedRules(body.rules, [])),
  }),
  changes: (change, current, applicationId) => ruleSetChanges(change, current.rules, applicationId),
  render: renderPriceSet,
});

/** Cohort widget configs (D28). */
export const cohortWidgets = new CohortEntries<
  CohortWidgetRow,
  TCohortWidgetConfig,
  TCohortWidgetConfigCreateBody,
  TCohortWidgetConfigUpdateBody,
  Record<string, never>
>({
  table: 'cohortWidgetConfigs',
  noun: 'widget config',
  idPrefix: 'cw',
  columns: COHORT_WIDGET_COLUMNS,
  current: ['type', 'variantKey'],
  values: (body) => ({
    status: body.status,
    variant: body.variant ?? null,
    name: body.name ?? null,
    config: JSON.stringify(body.config),
  }),
  changes: (change, _current, applicationId) => widgetChanges(change, applicationId),
  render: renderCohortWidget,
});
