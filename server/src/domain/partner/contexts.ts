import {
  PRICING_TYPES,
  type PricingType,
  SETTINGS_FIELDS,
  type TContextUpdateBody,
  type TMerchantSettings,
  type TPartnerContext,
  type TPartnerContextResolved,
  type TResolvedPricingRuleSet,
  type TSettingsField,
  type TSettingsOverrides,
} from '@protection-service/contract';
import { type RawBuilder, type Selectable, sql } from 'kysely';
import { announceStoreChange } from '../../cache/changes';
import type { Db } from '../../db/database';
import type { PartnerContextsTable } from '../../db/schema';
import { transact } from '../../db/transact';
import { newId } from '../../lib/ids';
import { refuse } from '../../lib/refusal';
import { PRICE_SET_COLUMNS } from './cohorts';
import { listRuleSets, renderRuleSet } from './pricing';
import { readMerchantSettings } from './settings';

/**
 * Partner contexts (spec "Partner contexts", D27, D37): the one live container of a
 * (store, app), holding sparse overrides of the merchant settings. Every function takes the
 * calling app's store and client id: another app's or another store's context answers
 * exactly like a missing one (D7).
 */

type ContextRow = Selectable<PartnerContextsTable>;

function render(row: ContextRow): TPartnerContext {
  return {
    id: row.id,
    applicationId: row.clientId,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt ? row.updatedAt.toISOString() : null,
  };
}

function overridesOf(row: ContextRow): TSettingsOverrides {
  return Object.fromEntries(SETTINGS_FIELDS.map((f) => [f, row[f] ?? null])) as TSettingsOverrides;
}

/** D37: the merchant settings with the context's non-null overrides on top. */
function layerOverrides(merchant: TMerchantSettings, row: ContextRow | undefined): TMerchantSettings {
  if (!row) return merchant;
  const resolved: Record<string, unknown> = { ...merchant };
  for (const f of SETTINGS_FIELDS) if (row[f] !== null) resolved[f] = row[f];
  return resolved as TMerchantSettings;
}

/**
 * `coalesce(<context override>, <merchant setting>)` of each field, built once, as raw text: a
 * column reference (`sql.ref`) would make the whole statement it joins (a claim's filing) go
 * through Kysely's compiler and its plugins' walk of every node, on every call, instead of
 * being read in one pass (runtime/kysely-raw.ts).
 */
const resolvedColumns = new Map<TSettingsField, RawBuilder<unknown>>();

/**
 * `layerOverrides` for one field, as an SQL expression for a statement that needs the resolved
 * value (D37) without reading the settings first: the app's live context's override when it
 * has one, else the merchant setting; null when the store has no merchant settings.
 */
export function resolvedSettingSql(field: TSettingsField, storeId: RawBuilder<string>, clientId: string | null) {
  let column = resolvedColumns.get(field);
  if (!column) {
    // The column of a field is its name in snake_case, as the database's CamelCasePlugin names it.
    const name = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    column = sql.raw(`coalesce(pc.${name}, ms.${name})`);
    resolvedColumns.set(field, column);
  }
  return sql<unknown>`(
    select ${column}
    from merchant_settings ms
    left join partner_contexts pc on pc.store_id = ms.store_id and pc.client_id = ${clientId} and pc.deleted_at is null
    where ms.store_id = ${storeId}
  )`;
}

/** The live context of (store, app), if any. */
async function activeContext(db: Db, storeId: string, clientId: string): Promise<ContextRow | undefined> {
  return db
    .selectFrom('partnerContexts')
    .selectAll()
    .where('storeId', '=', storeId)
    .where('clientId', '=', clientId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
}

const CONTEXT_NOT_FOUND = 'partner context not found';

/** The calling app's live context by id; a missing, deleted or foreign one is refused alike (D7). */
export async function ownContext(db: Db, storeId: string, clientId: string, contextId: string): Promise<ContextRow> {
  const row = await db
    .selectFrom('partnerContexts')
    .selectAll()
    .where('id', '=', contextId)
    .where('storeId', '=', storeId)
    .where('clientId', '=', clientId)
    .where('deletedAt', 'is', null)
    .executeTakeFirst();
  if (!row) throw refuse.missing(CONTEXT_NOT_FOUND);
  return row;
}

/** D37 "resolved settings" of an app on a store (merchant settings when it has no context). */
export async function resolvedSettings(
  db: Db,
  storeId: string,
  /** null for a staff member (D49): no app, so the merchant settings as they are. */
  clientId: string | null,
): Promise<TMerchantSettings | undefined> {
  const merchant = await readMerchantSettings(db, storeId);
  const context = clientId === null ? undefined : await activeContext(db, storeId, clientId);
  return merchant && layerOverrides(merchant, context);
}

/** D27: creates the one live context of (store, app); a second one is refused as a conflict (409). */
export async function createContext(db: Db, storeId: string, clientId: string, name: string): Promise<TPartnerContext> {
  return transact(db, async (trx) => {
    const row = await trx
      .insertInto('partnerContexts')
      .values({ id: newId('ctx'), storeId, clientId, name })
      .onConflict((oc) => oc.columns(['storeId', 'clientId']).where('deletedAt', 'is', null).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) throw refuse.conflict('this app already has a partner context on this store');
    await announceStoreChange(trx, storeId);
    return render(row);
  });
}

export async function listContexts(db: Db, storeId: string, clientId: string): Promise<TPartnerContext[]> {
  const row = await activeContext(db, storeId, clientId);
  return row ? [render(row)] : [];
}

/**
 * The resolved view (spec GET /v2/settings/context/:id): resolvedSettings (D37) and, for each
 * pricing type the token may read (D16 filtering), the cohort's own price set when
 * `variantKey` names a cohort that has one, else the merchant rule set.
 */
export async function resolvedView(
  db: Db,
  row: ContextRow,
  variantKey: string | undefined,
  readableTypes: readonly PricingType[],
): Promise<TPartnerContextResolved> {
  const merchant = await readMerchantSettings(db, row.storeId);
  if (!merchant) throw new Error(`store ${row.storeId} has no merchant settings`);
  const merchantSets = await listRuleSets(db, row.storeId, readableTypes);
  const cohortSets =
    variantKey === undefined || readableTypes.length === 0
      ? []
      : await db
          .selectFrom('cohortPriceSets')
          .select([...PRICE_SET_COLUMNS])
          .where('contextId', '=', row.id)
          .where('variantKey', '=', variantKey)
          .where('type', 'in', readableTypes)
          .execute();
  const resolvedPricingRules = PRICING_TYPES.flatMap((type): TResolvedPricingRuleSet[] => {
    const own = cohortSets.find((s) => s.type === type);
    if (own) return [{ ...renderRuleSet(own), source: 'partner' as const, variantKey: own.variantKey }];
    const fallback = merchantSets.find((s) => s.type === type);
    return fallback ? [{ ...fallback, source: 'merchant' as const, variantKey: null }] : [];
  });
  return {
    ...render(row),
    overrides: overridesOf(row),
    resolvedSettings: layerOverrides(merchant, row),
    resolvedVariantKey: variantKey ?? null,
    resolvedPricingRules,
  };
}

/**
 * D27 sparse update: sent fields become overrides (or the new name), omitted fields stay as
 * they are. Refused like `ownContext` when the context is not the caller's live one.
 */
export async function updateContext(
  db: Db,
  storeId: string,
  clientId: string,
  contextId: string,
  change: TContextUpdateBody,
): Promise<ContextRow> {
  return transact(db, async (trx) => {
    const set: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(change)) if (value !== undefined) set[key] = value;
    const row = await trx
      .updateTable('partnerContexts')
      .set({ ...set, updatedAt: new Date() })
      .where('id', '=', contextId)
      .where('storeId', '=', storeId)
      .where('clientId', '=', clientId)
      .where('deletedAt', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw refuse.missing(CONTEXT_NOT_FOUND);
    await announceStoreChange(trx, storeId);
    return row;
  });
}

/** Soft delete (spec): later traffic falls back to merchant defaults. Refused like `ownContext`. */
export async function deleteContext(db: Db, storeId: string, clientId: string, contextId: string): Promise<void> {
  return transact(db, async (trx) => {
    const row = await trx
      .updateTable('partnerContexts')
      .set({ deletedAt: new Date() })
      .where('id', '=', contextId)
      .where('storeId', '=', storeId)
      .where('clientId', '=', clientId)
      .where('deletedAt', 'is', null)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw refuse.missing(CONTEXT_NOT_FOUND);
    await announceStoreChange(trx, storeId);
  });
}

/**
 * D14: an uninstall soft-deletes the app's context, inside the uninstall transaction, and
 * announces the store's change so every process's public reads fall back at once.
 */
export async function softDeleteContextOnUninstall(trx: Db, storeId: string, clientId: string): Promise<void> {
  await trx
    .updateTable('partnerContexts')
    .set({ deletedAt: new Date() })
    .where('storeId', '=', storeId)
    .where('clientId', '=', clientId)
    .where('deletedAt', 'is', null)
    .execute();
  await announceStoreChange(trx, storeId);
}
