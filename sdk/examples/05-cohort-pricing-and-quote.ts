/**
 * 05 — Price a cohort of shoppers differently (an A/B test), quote it, and read what the
 * shopper's widget reads.
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… SVC_STORE_ID=st_… \
 *   node --import tsx sdk/examples/05-cohort-pricing-and-quote.ts
 *
 * Your app has one partner context per store (D27); each cohort is a price set with a
 * variant key (D28). Quotes and the public read pick the cohort by that key (D29, D31).
 * In your code, import from '@protection-service/sdk'.
 */
import { clientCredentials, createClient, unwrap } from '../src/index';
import { env } from './env';

const { baseUrl, clientId, clientSecret, storeId } = env();
const client = createClient({ baseUrl, auth: clientCredentials({ clientId, clientSecret, storeId }) });

// The app's context on this store: create it once, then reuse it.
const created = await client.settings.createContext({ body: { name: 'Pricing experiment' } });
const context = created.status === 201 ? created.body.data : unwrap(await client.settings.listContexts()).data[0]!;

const variantKey = `cheap-${Date.now()}`;
unwrap(
  await client.cohorts.createPriceSet({
    params: { contextId: context.id },
    body: {
      variantKey,
      type: 'SHIPPING',
      rules: [
        { min: 0, max: 100, terms: { customer: { amount: 1.5, type: 'fixed' } } },
        { min: 100, max: 10_000, terms: { customer: { amount: 2, type: 'percentage' } } },
      ],
    },
  }),
);

const quote = unwrap(
  await client.quote.create({ body: { policyType: 'SHIPPING', currency: 'USD', orderTotal: 150, variantKey } }),
).data;
console.log(`quote for 150.00: premium ${quote.premium} (${quote.source}, cohort ${quote.partnerVariantKey})`);

// What the storefront widget reads, anonymously: the cohort picked by two headers.
const shopper = createClient({ baseUrl });
const widget = unwrap(
  await shopper.public.getInsurance({
    query: { storeId, subtotal: 50 },
    headers: { 'x-svc-partner-app-id': clientId, 'x-svc-partner-variant': variantKey },
  }),
);
console.log(
  `widget pricing: ${widget.source}, ${widget.rules.length} rules, premium at 50.00: ${widget.quote?.premium}`,
);
