import type { TProduct, TProductChildWrite, TProductWrite } from '@protection-service/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database';
import { transact } from '../../db/transact';
import { roundMoney } from '../../lib/money';
import { refuse } from '../../lib/refusal';

const PRODUCT_NOT_FOUND = 'product not found';

/** The writable columns both bodies share (spec product update and child create bodies). */
function columnsOf(p: TProductWrite | TProductChildWrite): TProductWrite {
  const out: TProductWrite = {};
  const fields = [
    'name',
    'status',
    'description',
    'sku',
    'price',
    'tax',
    'inventoryType',
    'inventoryQuantity',
    'productImage',
    'productType',
    'inStock',
  ] as const;
  for (const f of fields) if (p[f] !== undefined) (out as Record<string, unknown>)[f] = p[f];
  return out;
}

/**
 * `PUT /v2/products/:productId` (D21): updates the fields sent, or creates the product, which
 * needs a `name` (refused, 400, without one). With a name it is one upsert, so two racing
 * creates make one product; without one it is an update that finds nothing to update when the
 * product is new.
 */
export async function upsertProduct(db: Db, storeId: string, productId: string, p: TProductWrite): Promise<void> {
  const columns = columnsOf(p);
  if (p.name === undefined) {
    const updated = await db
      .updateTable('products')
      .set({ ...columns, updatedAt: sql`now()` })
      .where('storeId', '=', storeId)
      .where('productId', '=', productId)
      .executeTakeFirst();
    if (updated.numUpdatedRows === 0n) {
      throw refuse.issues([{ path: 'body.name', message: 'required to create a product' }]);
    }
    return;
  }
  await db
    .insertInto('products')
    .values({ ...columns, name: p.name, storeId, productId })
    .onConflict((oc) => oc.columns(['storeId', 'productId']).doUpdateSet({ ...columns, updatedAt: sql`now()` }))
    .execute();
}

/**
 * `POST /v2/products/:productId/children` (D21): creates a child (variant) of an existing
 * product. `bundleProductIds` must name existing children of the same parent; a product id
 * already used in the store answers `exists` (409). The parent is key-share locked so it
 * cannot be deleted between the checks and the insert.
 */
export async function addChild(db: Db, storeId: string, parentId: string, child: TProductChildWrite): Promise<void> {
  const bundle = [...new Set(child.bundleProductIds ?? [])];
  return transact(db, async (trx) => {
    const parent = await trx
      .selectFrom('products')
      .select('productId')
      .where('storeId', '=', storeId)
      .where('productId', '=', parentId)
      .forKeyShare()
      .executeTakeFirst();
    if (!parent) throw refuse.missing(PRODUCT_NOT_FOUND);
    if (bundle.length > 0) {
      const found = await trx
        .selectFrom('products')
        .select('productId')
        .where('storeId', '=', storeId)
        .where('parentProductId', '=', parentId)
        .where('productId', 'in', bundle)
        .execute();
      const known = new Set(found.map((r) => r.productId));
      const unknown = (child.bundleProductIds ?? []).flatMap((id, i) => (known.has(id) ? [] : [i]));
      if (unknown.length > 0) {
        throw refuse.issues(
          unknown.map((i) => ({ path: `body.bundleProductIds.${i}`, message: 'not a child of this product' })),
        );
      }
    }
    const inserted = await trx
      .insertInto('products')
      .values({
        ...columnsOf(child),
        name: child.name,
        storeId,
        productId: child.productId,
        parentProductId: parentId,
        variantId: child.variantId ?? null,
        bundleProductIds: bundle,
      })
      .onConflict((oc) => oc.columns(['storeId', 'productId']).doNothing())
      .executeTakeFirst();
    if ((inserted.numInsertedOrUpdatedRows ?? 0n) === 0n) {
      throw refuse.conflict('a product with this productId already exists');
    }
  });
}

/**
 * `DELETE /v2/products/:productId` and `DELETE /v2/products/:productId/children/:childId`
 * (D21): removes the product and, through the foreign key, its children; it also leaves the
 * bundles of its siblings. With `parentId`, only a child of that parent is removed (a child
 * addressed through another parent is not found). Refused (404) when nothing matched.
 */
export async function deleteProduct(db: Db, storeId: string, productId: string, parentId?: string): Promise<void> {
  const result = await sql<{ deleted: number }>`
    with deleted as (
      delete from products
      where store_id = ${storeId} and product_id = ${productId}
        ${parentId === undefined ? sql`` : sql`and parent_product_id = ${parentId}`}
      returning parent_product_id
    ), unbundled as (
      update products p set bundle_product_ids = array_remove(p.bundle_product_ids, ${productId}), updated_at = now()
      from deleted
      where p.store_id = ${storeId} and p.parent_product_id = deleted.parent_product_id
        and ${productId} = any (p.bundle_product_ids)
    )
    select count(*)::int as deleted from deleted
  `.execute(db);
  if (result.rows[0]!.deleted === 0) throw refuse.missing(PRODUCT_NOT_FOUND);
}

/**
 * `DELETE /v2/products/:productId/bundle/remove` (D21): drops the named ids from the
 * product's bundle, keeping the order of the rest. Ids not in the bundle change nothing, so
 * a repeated removal succeeds. Refused (404) when the product is unknown.
 */
export async function removeFromBundle(
  db: Db,
  storeId: string,
  productId: string,
  productIds: readonly string[],
): Promise<void> {
  const result = await sql`
    update products p set
      bundle_product_ids = coalesce(array(
        select b.id from unnest(p.bundle_product_ids) with ordinality as b (id, n)
        where not (b.id = any (${[...productIds]}::text[]))
        order by b.n
      ), '{}'),
      updated_at = now()
    where p.store_id = ${storeId} and p.product_id = ${productId}
  `.execute(db);
  if ((result.numAffectedRows ?? 0n) === 0n) throw refuse.missing(PRODUCT_NOT_FOUND);
}

/** `GET /v2/products/:productId` (D21): `[product, ...its children]`; refused (404) when unknown. */
export async function readProductFamily(db: Db, storeId: string, productId: string): Promise<TProduct[]> {
  const rows = await db
    .selectFrom('products')
    .selectAll()
    .where('storeId', '=', storeId)
    .where((eb) => eb.or([eb('productId', '=', productId), eb('parentProductId', '=', productId)]))
    .orderBy(sql`product_id = ${productId}`, 'desc')
    .orderBy('createdAt')
    .orderBy('productId')
    .execute();
  if (rows[0]?.productId !== productId) throw refuse.missing(PRODUCT_NOT_FOUND);
  // D6: a catalogue amount has no currency of its own, so it rounds to 2 places.
  const money = (v: number | null) => (v === null ? null : roundMoney(v));
  return rows.map((r) => ({
    productId: r.productId,
    name: r.name,
    description: r.description,
    sku: r.sku,
    price: money(r.price),
    tax: money(r.tax),
    productImage: r.productImage,
    parentProductId: r.parentProductId,
    variantId: r.variantId,
    status: r.status as TProduct['status'],
    productType: r.productType as TProduct['productType'],
    bundleProductIds: r.bundleProductIds,
    inventoryType: r.inventoryType as TProduct['inventoryType'],
    inventoryQuantity: r.inventoryQuantity,
    inStock: r.inStock,
  }));
}
