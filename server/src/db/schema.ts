import type { ColumnType, Generated } from 'kysely';

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
  createdAt: Timestamp;
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
  requestedScopes: string[];
  distribution: 'public' | 'private';
  pricingApproved: Generated<boolean>;
  clientSecretHash: string;
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
  kind: 'token' | 'grant' | 'installation';
  subject: string;
  createdAt: Timestamp;
  expiresAt: Date;
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
  createdAt: Date;
  updatedAt: Timestamp;
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

export interface Database {
  apps: AppsTable;
  installations: InstallationsTable;
  grants: GrantsTable;
  authorizationCodes: AuthorizationCodesTable;
  refreshTokens: RefreshTokensTable;
  revocations: RevocationsTable;
  rateLimitCounters: RateLimitCountersTable;
  stores: StoresTable;
  dashboardUsers: DashboardUsersTable;
  storeMembers: StoreMembersTable;
  merchantSettings: MerchantSettingsTable;
  pricingRuleSets: PricingRuleSetsTable;
  widgetConfigs: WidgetConfigsTable;
  webhookEvents: WebhookEventsTable;
  webhookDeliveries: WebhookDeliveriesTable;
  webhookAttempts: WebhookAttemptsTable;
}
