import { initContract } from '@ts-rest/core';
import { analyticsRoutes } from './routes/analytics';
import { appRoutes } from './routes/apps';
import { authRoutes } from './routes/auth';
import { claimRoutes } from './routes/claims';
import { cohortRoutes } from './routes/cohorts';
import { fileRoutes } from './routes/files';
import { memberRoutes } from './routes/members';
import { oauthRoutes } from './routes/oauth';
import { orderRoutes } from './routes/orders';
import { pricingRoutes } from './routes/pricing';
import { productRoutes } from './routes/products';
import { publicRoutes } from './routes/public';
import { quoteRoutes } from './routes/quote';
import { settingsRoutes } from './routes/settings';
import { storeRoutes } from './routes/stores';
import { testHelperRoutes } from './routes/test-helpers';
import { trackingRoutes } from './routes/tracking';
import { widgetRoutes } from './routes/widgets';

const c = initContract();

/**
 * The whole API. Group order matters where paths overlap: Express tries routes in this
 * order, so literal segments (`/v1/claims/offline`) come before parameters.
 */
export const contract = c.router({
  oauth: oauthRoutes,
  auth: authRoutes,
  apps: appRoutes,
  stores: storeRoutes,
  members: memberRoutes,
  orders: orderRoutes,
  tracking: trackingRoutes,
  claims: claimRoutes,
  files: fileRoutes,
  analytics: analyticsRoutes,
  products: productRoutes,
  settings: settingsRoutes,
  cohorts: cohortRoutes,
  pricing: pricingRoutes,
  widgets: widgetRoutes,
  quote: quoteRoutes,
  public: publicRoutes,
  testHelpers: testHelperRoutes,
});
export type Contract = typeof contract;
