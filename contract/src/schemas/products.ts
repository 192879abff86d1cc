import { z } from 'zod';
import { ZAmount, ZId, ZText, ZUrl } from './common';

/** Product variant status (spec). */
export const PRODUCT_STATUSES = ['ACTIVE', 'DRAFT', 'ARCHIVED', 'DELETED'] as const;
export const ZProductStatus = z.enum(PRODUCT_STATUSES);

/** How inventory is tracked (spec): FULL uses `inventoryQuantity`, SIMPLE uses `inStock`. */
export const INVENTORY_TYPES = ['FULL', 'SIMPLE'] as const;
export const ZInventoryType = z.enum(INVENTORY_TYPES);

/** D21: the spec's declared enum (FULL, SIMPLE) plus GROUPED from its field text. */
export const PRODUCT_TYPES = ['FULL', 'SIMPLE', 'GROUPED'] as const;
export const ZProductType = z.enum(PRODUCT_TYPES);

const ZName = z.string().min(1).max(255);
const ZSku = z.string().max(255);
const ZDescription = ZText(10_000);
const ZInventoryQuantity = z.number().int().min(0).max(1_000_000_000);

/** At most 250 product ids per request (D3 page maximum). */
export const ZProductIds = z.array(ZId).max(250);

/**
 * `PUT /v2/products/:productId` body (spec product update body, D21). Every property is
 * optional; `name` is required when the product does not exist yet (400). Omitted fields keep
 * their stored values.
 */
export const ZProductWrite = z
  .object({
    name: ZName.optional().describe('Required when the product is created (D21)'),
    status: ZProductStatus.optional().describe('Status of the variant'),
    description: ZDescription.optional().describe('Helps choose the correct product'),
    sku: ZSku.optional(),
    price: ZAmount.optional(),
    tax: ZAmount.optional(),
    inventoryType: ZInventoryType.optional(),
    inventoryQuantity: ZInventoryQuantity.optional().describe('Stock remaining; used with inventoryType FULL'),
    productImage: ZUrl.optional().describe('Image URL'),
    productType: ZProductType.optional(),
    inStock: z.boolean().optional().describe('Used with inventoryType SIMPLE'),
  })
  .strict()
  .describe('Product update (D21)');
export type TProductWrite = z.infer<typeof ZProductWrite>;

/** `POST /v2/products/:productId/children` body (spec child create body, D21). */
export const ZProductChildWrite = z
  .object({
    productId: ZId.describe('Unique product id of the child'),
    variantId: ZId.optional().describe('Use when the platform has variant ids; otherwise omit'),
    status: ZProductStatus.optional(),
    name: ZName.describe('Required: a child is always created (D21)'),
    description: ZDescription.optional(),
    sku: ZSku.optional(),
    price: ZAmount.optional(),
    tax: ZAmount.optional(),
    inventoryType: ZInventoryType.optional(),
    inventoryQuantity: ZInventoryQuantity.optional(),
    inStock: z.boolean().optional(),
    productImage: ZUrl.optional(),
    productType: ZProductType.optional(),
    bundleProductIds: ZProductIds.optional().describe(
      'Ids of already created children of the same parent (400 otherwise, D21)',
    ),
  })
  .strict()
  .describe('Product child create (D21)');
export type TProductChildWrite = z.infer<typeof ZProductChildWrite>;

/** `DELETE /v2/products/:productId/bundle/remove` body: the ids to drop from the bundle (D21). */
export const ZBundleRemove = z
  .object({ productIds: ZProductIds.min(1) })
  .strict()
  .describe('Bundle removal (D21)');
export type TBundleRemove = z.infer<typeof ZBundleRemove>;

/** A product as read: the spec's read fields plus those of D21. */
export const ZProduct = z
  .object({
    productId: ZId,
    name: z.string(),
    description: z.string().nullable(),
    sku: z.string().nullable(),
    price: ZAmount.nullable(),
    tax: ZAmount.nullable(),
    productImage: z.string().nullable(),
    parentProductId: ZId.nullable().describe('Set on children (variants)'),
    variantId: ZId.nullable(),
    status: ZProductStatus.nullable(),
    productType: ZProductType.nullable(),
    bundleProductIds: z.array(ZId),
    inventoryType: ZInventoryType.nullable(),
    inventoryQuantity: ZInventoryQuantity.nullable(),
    inStock: z.boolean().nullable(),
  })
  .strict()
  .describe('Product (D21)');
export type TProduct = z.infer<typeof ZProduct>;

/** `GET /v2/products/:productId`: the product first, then its children (D21). */
export const ZProductFamily = z.array(ZProduct).min(1);
export type TProductFamily = z.infer<typeof ZProductFamily>;
