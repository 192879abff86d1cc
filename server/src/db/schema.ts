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

export interface Database {
  stores: StoresTable;
  dashboardUsers: DashboardUsersTable;
  storeMembers: StoreMembersTable;
  merchantSettings: MerchantSettingsTable;
  pricingRuleSets: PricingRuleSetsTable;
  widgetConfigs: WidgetConfigsTable;
}
