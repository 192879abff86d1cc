import type { Contract, TMerchantSettings } from '@protection-service/contract';
import type { AppRoute, AppRouter } from '@ts-rest/core';
import type { AppRouteImplementation } from '@ts-rest/express';
import type { AppDeps } from '../app-deps';
import type { StoreCache } from '../cache/store-cache';
import type { ClaimLinks } from '../domain/claims/links';
import type { FileLinks } from '../domain/files/files';
import type { FileStorage } from '../domain/files/storage';
import type { QuotePricing } from '../domain/partner/pricing-source';
import type { ApiUsage } from '../http/api-usage';
import type { AuthServices } from '../http/auth';
import type { PublicReadCache } from '../http/public-cache';
import type { OfferTokens } from '../lib/offer-tokens';
import type { KeysetPager } from '../lib/pager';

/** The handlers of one contract group: every route of the group has one, or nothing compiles. */
export type GroupHandlers<G extends AppRouter> = {
  [K in keyof G]: G[K] extends AppRoute ? AppRouteImplementation<G[K]> : never;
};
/** A handler for every route of the contract. */
export type Handlers = { [G in keyof Contract]: GroupHandlers<Contract[G]> };

/** What handlers get: the app's dependencies and the app-wide services createApp builds. */
export interface RouteContext extends AppDeps {
  publicCache: PublicReadCache;
  /** What quotes price from, per (store, app, variantKey, type), dropped when the store changes. */
  pricingCache: StoreCache<QuotePricing>;
  /** The merchant settings answer per store (GET /v2/settings), dropped when the store changes. */
  settingsCache: StoreCache<TMerchantSettings>;
  auth: AuthServices;
  /** Builds and checks the shoppers' claim links (D41), under a key derived once. */
  claimLinks: ClaimLinks;
  /** Where files' bytes live (D56): the data folder or an S3-compatible store. */
  fileStorage: FileStorage;
  /** Builds and checks files' capability links (D56), under a key derived once. */
  fileLinks: FileLinks;
  /** Pages every cursor list (D24), its cursors signed under a key derived once. */
  pager: KeysetPager;
  /** Issues and checks the storefront offer tokens (D55), under a key derived once. */
  offerTokens: OfferTokens;
  /** Counts each app's calls per API version for its health report (D44). */
  apiUsage: ApiUsage;
}
