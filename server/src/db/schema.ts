import type { Role } from '@protection-service/contract';
import type { ColumnType, Generated, GeneratedAlways } from 'kysely';

/** Columns with a database default: optional on insert. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface PriceTermsRow {
  amount: number;
  type: 'fixed' | 'percentage';
}
export interface PriceRuleRow {
  id: string;
  min: number;
  max: number;
  terms: {
    paidBy?: string;
    operator?: 'AND' | 'OR';
    customer?: PriceTermsRow;
    brand?: PriceTermsRow;
  };
}

export interface StoresTable {
  id: string;
  name: string;
  domain: string;
  currency: string;
  /** D45: false for a test store, fixed for life. */
  livemode: ColumnType<boolean, boolean | undefined, never>;
  /** D45: the app a test store was made for; null for a live store. */
  testClientId: ColumnType<string | null, string | null | undefined, never>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface DashboardUsersTable {
  id: string;
  email: string;
  passwordHash: string;
  firstName: string | null;
  lastName: string | null;
  createdAt: Timestamp;
}

export interface StoreMembersTable {
  storeId: string;
  userId: string;
  /** D49; members from before roles are owners. */
  role: ColumnType<Role, Role | undefined, Role>;
  /** What the member's staff tokens are bound to; replaced on a role change (D49). */
  staffGrantId: ColumnType<string, string | undefined, string>;
  /** Merchant notices the member opted in to (D53). */
  notifyClaimFiled: ColumnType<boolean, boolean | undefined, boolean>;
  notifyShopperReplied: ColumnType<boolean, boolean | undefined, boolean>;
  createdAt: Timestamp;
}

/** An invitation to a store not yet accepted (D53); its link carries `linkId` and a MAC. */
export interface MemberInvitationsTable {
  id: string;
  storeId: string;
  email: string;
  role: Role;
  linkId: string;
  invitedBy: string | null;
  createdAt: Timestamp;
  expiresAt: Date;
}

export interface MerchantSettingsTable {
  storeId: string;
  enableCancelAfterPurchase: boolean;
  cancelAfterPurchaseDurationSeconds: number;
  sendConfirmationEmail: boolean;
  sendSmsUpdates: boolean;
  offerStoreCreditOnServicePurchase: boolean;
  storeCreditType: string;
  storeCreditBonus: number;
  storeCreditBonusType: 'flat' | 'percentage';
  storeCreditMaxPercentage: number;
  /** D56: issue types the shopper's claim form asks photos for (issue types, D22). */
  photosRequiredFor: ColumnType<string[], string[] | undefined, string[]>;
  updatedByApplicationId: string | null;
  updatedAt: Timestamp;
}

export interface PricingRuleSetsTable {
  id: string;
  storeId: string;
  type: 'SHIPPING' | 'EXTENDED_WARRANTY';
  automaticallyAddToCart: Generated<boolean>;
  autoAddStateBlockList: ColumnType<string[], string[] | undefined, string[]>;
  autoAddCountryBlockList: ColumnType<string[], string[] | undefined, string[]>;
  rules: Json<PriceRuleRow[]>;
  updatedByApplicationId: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface WidgetConfigsTable {
  id: string;
  storeId: string;
  type: 'CHECKOUT' | 'CART' | 'INFO_MODAL';
  status: string;
  variant: string | null;
  name: string;
  config: Json<Record<string, unknown>>;
  updatedByApplicationId: string | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface AppsTable {
  clientId: string;
  ownerUserId: string;
  name: string;
  redirectUris: string[];
  webhookUrl: string | null;
  webhookTopics: ColumnType<string[], string[] | undefined, string[]>;
  /** D45: where the events of the app's test stores go. */
  testWebhookUrl: ColumnType<string | null, string | null | undefined, string | null>;
  /** D44: the dated version serving the app's calls without an Api-Version header. */
  apiVersion: ColumnType<string, string | undefined, string>;
  requestedScopes: string[];
  distribution: 'public' | 'private';
  pricingApproved: Generated<boolean>;
  clientSecretHash: string;
  /** D45: the test client secret's digest; null until the app has one. */
  testClientSecretHash: ColumnType<string | null, string | null | undefined, string | null>;
  webhookSecretCiphertext: string;
  /** D34: after a rotation, the previous secret signs too until it expires. */
  previousWebhookSecretCiphertext: ColumnType<string | null, string | null | undefined, string | null>;
  previousWebhookSecretExpiresAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface InstallationsTable {
  id: string;
  storeId: string;
  clientId: string;
  scopes: string[];
  installedByUserId: string | null;
  installedAt: Timestamp;
  updatedAt: Timestamp;
  uninstalledAt: Date | null;
  /** D35: set by a 410 answer; no deliveries while set. */
  webhookDisabledAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface GrantsTable {
  id: string;
  kind: 'oauth' | 'dashboard';
  clientId: string | null;
  storeId: string | null;
  installationId: string | null;
  userId: string | null;
  scopes: ColumnType<string[], string[] | undefined, string[]>;
  createdAt: Timestamp;
  revokedAt: Date | null;
  revokedReason: string | null;
}

export interface AuthorizationCodesTable {
  codeHash: string;
  clientId: string;
  storeId: string;
  userId: string;
  installationId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  expiresAt: Date;
  usedAt: Date | null;
  grantId: string | null;
  createdAt: Timestamp;
}

export interface RefreshTokensTable {
  tokenHash: string;
  grantId: string;
  scopes: ColumnType<string[], string[] | undefined, string[]>;
  createdAt: Timestamp;
  expiresAt: Date;
  retiredAt: Date | null;
}

export interface RevocationsTable {
  id: Generated<number>;
  kind: 'token' | 'grant' | 'installation' | 'membership';
  subject: string;
  createdAt: Timestamp;
  expiresAt: Date;
}

/** A store's cached answers must be dropped (D29): written in the change's transaction. */
export interface StoreChangesTable {
  id: GeneratedAlways<number>;
  storeId: string;
  createdAt: Timestamp;
}

export interface RateLimitCountersTable {
  key: string;
  windowStart: Date;
  count: number;
}

// Webhooks (D32, D34, D35).

export interface WebhookEventsTable {
  id: string;
  storeId: string;
  topic: string;
  body: Json<unknown>;
  createdAt: Timestamp;
  /** The W3C traceparent of the change that recorded it, when tracing was on: its deliveries join that trace. */
  traceparent: ColumnType<string | null, string | null | undefined, never>;
}

export interface WebhookDeliveriesTable {
  eventId: string;
  clientId: string;
  installationId: string;
  status: ColumnType<'pending' | 'delivered' | 'failed', 'pending' | 'delivered' | 'failed' | undefined>;
  attemptCount: Generated<number>;
  nextAttemptAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  leasedUntil: ColumnType<Date | null, Date | null | undefined, Date | null>;
  leaseToken: ColumnType<string | null, string | null | undefined, string | null>;
  /** When its attempt's job was queued; null while due and not yet queued (the sweep looks). */
  queuedAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  createdAt: Date;
  updatedAt: Timestamp;
  /** The receiver's pinned API version when recorded (D44); null renders as the latest. */
  apiVersion: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  eventId: string;
  clientId: string;
  attemptedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

/* ---------------------------------------------------------------- partner contexts and cohorts (D27, D28) */

/** Null override columns inherit the merchant value (D37). */
export interface PartnerContextsTable {
  id: string;
  storeId: string;
  clientId: string;
  name: string;
  enableCancelAfterPurchase: boolean | null;
  cancelAfterPurchaseDurationSeconds: number | null;
  sendConfirmationEmail: boolean | null;
  sendSmsUpdates: boolean | null;
  offerStoreCreditOnServicePurchase: boolean | null;
  storeCreditType: string | null;
  storeCreditBonus: number | null;
  storeCreditBonusType: 'flat' | 'percentage' | null;
  storeCreditMaxPercentage: number | null;
  createdAt: Timestamp;
  updatedAt: Date | null;
  deletedAt: Date | null;
  /** D44: the `variantKey` a 2025-01-01 client created the context with (the version layer's, never the domain's). */
  legacyVariantKey: ColumnType<string | null, string | null | undefined, string | null>;
}

/** D44: calls per app, version and UTC day, for the API health report. */
export interface ApiVersionCallsTable {
  clientId: string;
  apiVersion: string;
  day: ColumnType<Date, string, never>;
  calls: ColumnType<number, number, never>;
  lastCallAt: ColumnType<Date, Date, Date>;
}

/** A cohort's price set: a merchant rule set's columns, owned by a context and a variantKey. */
export interface CohortPriceSetsTable extends Omit<PricingRuleSetsTable, 'storeId'> {
  contextId: string;
  variantKey: string;
}

/** A cohort's widget config: a merchant widget config's columns, owned by a context and a variantKey. */
export interface CohortWidgetConfigsTable extends Omit<WidgetConfigsTable, 'storeId' | 'name'> {
  contextId: string;
  variantKey: string;
  name: string | null;
}

// Commerce: orders, line items, policies, fulfillments, products (D18-D21); idempotency (D33).

/** numeric money: a number when read (db/database.ts), a number or null when written. */
type Money = ColumnType<number, number, number>;
type NullableMoney = ColumnType<number | null, number | null | undefined, number | null>;

export interface OrdersTable {
  id: string;
  storeId: string;
  sourceOrderId: string;
  sourceOrderNumber: string;
  currency: string;
  policyCancelledAt: Date | null;
  originalSourceOrderId: string | null;
  sourceCreatedAt: Date;
  sourceUpdatedAt: Date | null;
  sourceCancelledAt: Date | null;
  platformId: string;
  premiumPaid: NullableMoney;
  total: Money;
  discountTotal: NullableMoney;
  shippingCost: NullableMoney;
  tax: NullableMoney;
  subtotal: NullableMoney;
  customerEmail: string | null;
  customerName: string | null;
  customerPhone: string | null;
  shippingCostTax: NullableMoney;
  lineItemsKnown: Generated<boolean>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  deletedAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The transaction that last changed what D52's rollups count (xid8, read as text), set by default and trigger. */
  changedXid: Generated<string>;
}

/** D55: the offer a shopper was shown and chose, one per order (written by the order's write). */
export interface OrderOffersTable {
  orderId: string;
  storeId: string;
  placedAt: Date;
  policyType: string;
  amount: Money;
  currency: string;
  subtotal: Money;
  ruleSetId: string;
  ruleId: string | null;
  widgetConfigId: string | null;
  widgetConfigUpdatedAt: Date | null;
  partnerApplicationId: string | null;
  partnerVariantKey: string | null;
  preselected: boolean;
  selected: boolean;
  decidedAt: Date;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface OrderLineItemsTable {
  orderId: string;
  sourceItemId: string;
  position: number;
  sourceProductId: string | null;
  sourceVariantId: string | null;
  name: string | null;
  sku: string | null;
  quantity: number;
  price: NullableMoney;
  isShippable: boolean | null;
}

export interface ProtectionPoliciesTable {
  id: string;
  storeId: string;
  orderId: string;
  premiumPaid: Money;
  premiumCurrency: string | null;
  customerAmount: Money;
  brandAmount: ColumnType<number, number | undefined, number>;
  insuredAmount: Money;
  premiumDiscountedAmount: ColumnType<number, number | undefined, number>;
  fundedBy: ColumnType<'customer' | 'brand', 'customer' | 'brand' | undefined>;
  hybridOperator: ColumnType<'AND' | 'OR', 'AND' | 'OR' | undefined>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  removedAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  removalReason: ColumnType<
    'CANCELLED' | 'PREMIUM_REMOVED' | 'ORDER_DELETED' | null,
    'CANCELLED' | 'PREMIUM_REMOVED' | 'ORDER_DELETED' | null | undefined
  >;
  deletedAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The transaction that last changed what D52's rollups count (xid8, read as text), set by default and trigger. */
  changedXid: Generated<string>;
}

export interface FulfillmentsTable {
  orderId: string;
  sourceFulfillmentId: string;
  fulfillmentStatus: string;
  sourceItemIds: Json<{ sourceItemId: string; quantity: number }[]>;
  trackingCompany: string | null;
  trackingNumber: ColumnType<string[], string[] | undefined, string[]>;
  trackingUrl: ColumnType<string[], string[] | undefined, string[]>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  cancelledAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface ProductsTable {
  storeId: string;
  productId: string;
  parentProductId: string | null;
  name: string;
  description: string | null;
  sku: string | null;
  price: NullableMoney;
  tax: NullableMoney;
  productImage: string | null;
  variantId: string | null;
  status: string | null;
  productType: string | null;
  inventoryType: string | null;
  inventoryQuantity: number | null;
  inStock: boolean | null;
  bundleProductIds: ColumnType<string[], string[] | undefined, string[]>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface IdempotencyKeysTable {
  /** The installation whose token sent the key, or null for a staff token's (D49: then its store and user). */
  installationId: string | null;
  storeId: string | null;
  userId: string | null;
  key: string;
  route: string;
  requestDigest: string;
  state: ColumnType<'running' | 'done', 'running' | 'done' | undefined>;
  responseStatus: number | null;
  responseHeaders: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  responseBody: Buffer | null;
  createdAt: Timestamp;
}

// Claims (D22-D26).

type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export interface ClaimsTable {
  id: string;
  storeId: string;
  orderId: string;
  sourceOrderId: string;
  policyId: Nullable<string>;
  claimFiledFrom: ColumnType<'EXTERNAL' | 'INTERNAL', 'EXTERNAL' | 'INTERNAL' | undefined>;
  customerId: Nullable<string>;
  authorName: Nullable<string>;
  authorEmail: Nullable<string>;
  claimDescription: Nullable<string>;
  resolutionRequested: Nullable<string>;
  resolutionDate: Nullable<Date>;
  claimState: ColumnType<string, string | undefined, string>;
  claimType: Nullable<string>;
  claimCategory: string;
  salesChannel: string;
  isOta: Generated<boolean>;
  otaDescription: Nullable<string>;
  externalSource: Nullable<string>;
  warrantyPeriod: Nullable<string>;
  options: Nullable<Json<unknown>>;
  offlineDetails: Nullable<Json<unknown>>;
  denyReason: Nullable<string>;
  denyDetails: Nullable<string>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  deletedAt: Nullable<Date>;
  /** The random half of the shopper's link (D41); never shown without its MAC. */
  linkId: Generated<string>;
  /** The transaction that last changed what D52's rollups count (xid8, read as text), set by default and trigger. */
  changedXid: Generated<string>;
  /** D57: the stored risk, written at filing and by the recompute (domain/claims/risk). */
  riskLevel: Generated<'low' | 'medium' | 'high'>;
  riskSignals: Generated<Json<{ code: string; detail: string; relatedClaimIds: string[] }[]>>;
  /** D57: the sum of quantity × the order line's unit price (numeric, read as a number). */
  claimedValue: ColumnType<number | null, number | null | undefined, number | null>;
  claimedCurrency: ColumnType<string | null, string | null | undefined, string | null>;
  /** D57: the offline claim's shipping address, normalised (a generated column). */
  shippingAddressKey: GeneratedAlways<string | null>;
}

/** D57: a claim whose risk is to be computed again, written by triggers, taken by the sweep. */
export interface ClaimRiskPendingTable {
  claimId: string;
  queuedAt: Timestamp;
  /** How many changes queued the claim while it waited: the computing statement takes the row only at the count it read (D57). */
  changes: Generated<number>;
}

export interface ClaimItemsTable {
  id: string;
  claimId: string;
  position: number;
  itemId: string | null;
  quantity: number;
  issueType: string | null;
  sourceFulfillmentId: string | null;
  sourceProductId: string | null;
  sourceVariantId: string | null;
  details: string | null;
  images: Json<string[]>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  deletedAt: Nullable<Date>;
}

export interface ClaimMessagesTable {
  id: string;
  claimId: string;
  senderType: 'customer' | 'brand';
  message: string;
  authorName: string | null;
  medias: Json<string[]>;
  /** Who wrote a brand message: an app's client id or a user's id (D51); null for the shopper's. */
  actorId: Nullable<string>;
  createdAt: Timestamp;
}

/** A staff note on a claim (D51): never shown to the shopper, never sent in a webhook. */
export interface ClaimNotesTable {
  id: string;
  claimId: string;
  note: string;
  /** An app's client id or a user's id. */
  actorId: string | null;
  createdAt: Timestamp;
}

export interface ClaimResolutionsTable {
  id: string;
  claimId: string;
  position: number;
  userId: string | null;
  resolutionType: string;
  resolutionDetails: string | null;
  itemId: string | null;
  quantity: number | null;
  paidValue: NullableMoney;
  paidCurrency: string | null;
  paidOriginalValue: NullableMoney;
  includeShipping: boolean;
  shippingAmount: NullableMoney;
  creditStore: boolean;
  claimState: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  deletedAt: Nullable<Date>;
  /** The transaction that last changed what D52's rollups count (xid8, read as text), set by default and trigger. */
  changedXid: Generated<string>;
}

export interface ClaimStoreCreditsTable {
  code: string;
  claimId: string;
  resolutionId: string;
  emailStatus: ColumnType<string, string | undefined, string>;
  emailTime: Nullable<Date>;
  creditValue: Money;
  bonusValue: Money;
  totalValue: Money;
  bonus: Money;
  bonusType: string;
  creditType: string;
  creditCurrency: string | null;
  exchangeRate: NullableMoney;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  deletedAt: Nullable<Date>;
}

/** D42: one e-mail to a shopper, written in the transaction of the change that causes it. */
export interface MailMessagesTable {
  id: string;
  storeId: string;
  claimId: string | null;
  /** The invitation a `member_invited` message carries (D53). */
  invitationId: ColumnType<string | null, string | null | undefined, string | null>;
  kind:
    | 'claim_filed'
    | 'claim_approved'
    | 'claim_denied'
    | 'store_credit'
    | 'member_invited'
    | 'notice_claim_filed'
    | 'notice_shopper_replied';
  storeCreditCode: string | null;
  recipient: string;
  status: ColumnType<
    'pending' | 'sent' | 'failed' | 'not_sent',
    'pending' | 'sent' | 'failed' | 'not_sent' | undefined,
    'pending' | 'sent' | 'failed' | 'not_sent'
  >;
  attemptCount: Generated<number>;
  nextAttemptAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  queuedAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  leasedUntil: ColumnType<Date | null, Date | null | undefined, Date | null>;
  leaseToken: ColumnType<string | null, string | null | undefined, string | null>;
  sentAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  error: ColumnType<string | null, string | null | undefined, string | null>;
  /** The W3C traceparent of the change that wrote it, when tracing was on: its attempts join that trace. */
  traceparent: ColumnType<string | null, string | null | undefined, never>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface ClaimDocumentsTable {
  id: string;
  claimId: string;
  position: number;
  url: string;
  documentType: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  deletedAt: Nullable<Date>;
}

export interface ClaimStateChangesTable {
  id: Generated<number>;
  claimId: string;
  fromState: string;
  toState: string;
  /** The app that made the move, or null for a staff member's (D49). */
  clientId: string | null;
  /** The person who made the move with a staff token (D49). */
  userId: string | null;
  note: string | null;
  createdAt: Timestamp;
  /** The transaction that last changed what D52's rollups count (xid8, read as text), set by default and trigger. */
  changedXid: Generated<string>;
}

/**
 * D52's day rollups, folded by the delivering processes from the rows changed behind a
 * watermark (migration 20261129000000-analytics-watermark; definition.ts, rollups.ts), one row
 * per key, and readers add what changed since the watermark. Counts are
 * bigint and sums numeric: read them as text through raw SQL, never as floats.
 */
export interface AnalyticsOrderDaysTable {
  storeId: string;
  day: Date;
  currency: string;
  orders: Generated<number>;
  protectedOrders: Generated<number>;
  premiums: Generated<number>;
}

export interface AnalyticsClaimDaysTable {
  storeId: string;
  day: Date;
  claims: Generated<number>;
  decided: Generated<number>;
  approved: Generated<number>;
}

export interface AnalyticsPaidDaysTable {
  storeId: string;
  day: Date;
  resolutionType: string;
  currency: string;
  resolutions: Generated<number>;
  amount: Generated<number>;
}

/**
 * What the fold last counted of each row (migration 20261129000000-analytics-watermark): a fold
 * adds to the day rows the difference between a changed row's figures now and these.
 */
export interface AnalyticsOrderCountedTable {
  orderId: string;
  currency: string;
  storeId: string;
  day: Date;
  orders: number;
  protectedOrders: number;
  premiums: number;
}

export interface AnalyticsClaimCountedTable {
  claimId: string;
  storeId: string;
  day: Date;
  claims: number;
  decided: number;
  approved: number;
  /** Hours from filing to the first decision, null while undecided (the median's, D52). */
  decisionHours: Nullable<number>;
}

export interface AnalyticsPaidCountedTable {
  resolutionId: string;
  storeId: string;
  day: Date;
  resolutionType: string;
  currency: string;
  resolutions: number;
  amount: number;
}

/** The fold's watermark, one row: every transaction below `xid` (xid8, read as text) had ended when it was folded. */
export interface AnalyticsFoldTable {
  one: Generated<boolean>;
  xid: string;
  /** D52: a fold in rounds, the watermark it folds up to and the last id counted per day table. */
  foldTo: string | null;
  foldAfter: Record<string, string | null> | null;
}

/** The store audit log (D53): one row per store an act concerns. */
export interface AuditEventsTable {
  id: string;
  storeId: string;
  at: Generated<Date>;
  actorType: 'user' | 'app';
  actorId: string;
  actorEmail: string | null;
  action: string;
  targetType: string;
  targetId: string;
  changes: Json<unknown> | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** D54: a carrier aggregator registered by a store; its secret encrypted, as apps' webhook secrets. */
export interface TrackingSourcesTable {
  id: string;
  storeId: string;
  livemode: boolean;
  provider: 'aftership' | 'easypost' | 'ship24';
  secretCiphertext: string;
  createdAt: Timestamp;
  removedAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

type TrackingStatusColumn =
  | 'pre_transit'
  | 'in_transit'
  | 'out_for_delivery'
  | 'available_for_pickup'
  | 'delivered'
  | 'return_to_sender'
  | 'exception'
  | 'lost'
  | 'unknown';
type NullableTime = ColumnType<Date | null, Date | null | undefined, Date | null>;

/** D57: a carrier's proof of delivery: who signed for the package, a photo of it delivered. */
export interface DeliveryProof {
  signedBy: string | null;
  photoUrl: string | null;
}

/** D54: one tracking number of a fulfillment; unbound (no fulfillment) until one names it. */
export interface TrackingPackagesTable {
  id: string;
  storeId: string;
  livemode: boolean;
  orderId: string | null;
  sourceFulfillmentId: string | null;
  trackingNumber: string;
  carrier: ColumnType<string | null, string | null | undefined, string | null>;
  status: ColumnType<TrackingStatusColumn, TrackingStatusColumn | undefined, TrackingStatusColumn>;
  subStatus: ColumnType<string | null, string | null | undefined, string | null>;
  statusAt: NullableTime;
  lastScanAt: NullableTime;
  shippedAt: NullableTime;
  deliveredAt: NullableTime;
  estimatedDeliveryAt: NullableTime;
  /** D57: what the carrier gave as proof of delivery, when a provider sent one. */
  deliveryProof: ColumnType<DeliveryProof | null, string | null | undefined, string | null>;
  /** The one claim the rules filed for it (unique: never two, D54). */
  claimId: ColumnType<string | null, string | null | undefined, string | null>;
  unboundUntil: NullableTime;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** D54: one event of a package, once per `eventKey`. */
export interface TrackingEventsTable {
  id: GeneratedAlways<number>;
  packageId: string;
  eventKey: string;
  occurredAt: Timestamp;
  status: TrackingStatusColumn;
  subStatus: string | null;
  rawStatus: string | null;
  /** Cleared with the retention (D48). */
  description: string | null;
  location: string | null;
  isCarrierScan: boolean;
  receivedAt: Timestamp;
}

/** D54: one evaluation's outcome on a package. */
export interface TrackingDecisionsTable {
  id: GeneratedAlways<number>;
  packageId: string;
  at: Timestamp;
  asOf: Timestamp;
  rule: 'lost' | 'delayed' | 'returned' | null;
  action: 'filed' | 'notified' | 'skipped' | 'escalated';
  reason: string;
  claimId: string | null;
}

/** D54: the store's tracking rules once written; D54's defaults without a row. */
export interface TrackingSettingsTable {
  storeId: string;
  mode: 'off' | 'notify' | 'file';
  lostNoMovementDays: number;
  lostAfterEstimatedDays: number;
  delayedEnabled: boolean;
  delayedAfterEstimatedDays: number;
  claimWindowDays: number;
  resolutionRequested: 'REFUND' | 'RESHIP' | 'STORE_CREDIT';
  updatedAt: Timestamp;
}

export interface Database {
  apps: AppsTable;
  installations: InstallationsTable;
  grants: GrantsTable;
  authorizationCodes: AuthorizationCodesTable;
  refreshTokens: RefreshTokensTable;
  revocations: RevocationsTable;
  storeChanges: StoreChangesTable;
  rateLimitCounters: RateLimitCountersTable;
  stores: StoresTable;
  dashboardUsers: DashboardUsersTable;
  storeMembers: StoreMembersTable;
  memberInvitations: MemberInvitationsTable;
  merchantSettings: MerchantSettingsTable;
  pricingRuleSets: PricingRuleSetsTable;
  widgetConfigs: WidgetConfigsTable;
  webhookEvents: WebhookEventsTable;
  webhookDeliveries: WebhookDeliveriesTable;
  webhookAttempts: WebhookAttemptsTable;
  partnerContexts: PartnerContextsTable;
  apiVersionCalls: ApiVersionCallsTable;
  cohortPriceSets: CohortPriceSetsTable;
  cohortWidgetConfigs: CohortWidgetConfigsTable;
  orders: OrdersTable;
  orderLineItems: OrderLineItemsTable;
  orderOffers: OrderOffersTable;
  protectionPolicies: ProtectionPoliciesTable;
  fulfillments: FulfillmentsTable;
  products: ProductsTable;
  idempotencyKeys: IdempotencyKeysTable;
  // Claims (D22-D26).
  claims: ClaimsTable;
  claimItems: ClaimItemsTable;
  claimMessages: ClaimMessagesTable;
  claimResolutions: ClaimResolutionsTable;
  claimStoreCredits: ClaimStoreCreditsTable;
  claimDocuments: ClaimDocumentsTable;
  claimStateChanges: ClaimStateChangesTable;
  claimNotes: ClaimNotesTable;
  // E-mail to shoppers (D42).
  mailMessages: MailMessagesTable;
  auditEvents: AuditEventsTable;
  analyticsOrderDays: AnalyticsOrderDaysTable;
  analyticsClaimDays: AnalyticsClaimDaysTable;
  analyticsPaidDays: AnalyticsPaidDaysTable;
  analyticsOrderCounted: AnalyticsOrderCountedTable;
  analyticsClaimCounted: AnalyticsClaimCountedTable;
  analyticsPaidCounted: AnalyticsPaidCountedTable;
  analyticsFold: AnalyticsFoldTable;
  // Shipment tracking (D54).
  trackingSources: TrackingSourcesTable;
  trackingPackages: TrackingPackagesTable;
  trackingEvents: TrackingEventsTable;
  trackingDecisions: TrackingDecisionsTable;
  trackingSettings: TrackingSettingsTable;
  // Files (D56).
  files: FilesTable;
  fileMatches: FileMatchesTable;
  claimRiskPending: ClaimRiskPendingTable;
}

/** Two photos of a store within D57's reuse distance, found when the later one was stored; kept both ways. */
export interface FileMatchesTable {
  fileId: string;
  matchId: string;
  /** The closest of the four full/centre distances, in bits. */
  bits: number;
}

/** An uploaded photo or receipt (D56); its bytes are in the file storage under `storageKey`. */
export interface FilesTable {
  id: string;
  storeId: string;
  purpose: 'claim_evidence';
  type: 'image/jpeg' | 'image/png' | 'image/webp' | 'application/pdf';
  size: number;
  sha256: string;
  width: number | null;
  height: number | null;
  /** The random half of the file's capability link (D41's construction). */
  linkId: string;
  storageKey: string;
  /**
   * A 64-bit perceptual hash of a photo (domain/files/perceptual-hash.ts), computed at upload (D57).
   * int8 parses to a JS number, which cannot hold 64 bits: read it as text in SQL.
   */
  perceptualHash: ColumnType<number | null, string | null | undefined, string | null>;
  /** The same hash of the photo's middle 90 % (perceptual-hash.ts CENTRE), compared both ways with the full one (D57). */
  perceptualHashCentre: ColumnType<number | null, string | null | undefined, string | null>;
  claimId: Nullable<string>;
  attachedAt: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  createdAt: Generated<Date>;
}
