/**
 * 05, in its 2025-01-01 form — Price a cohort of shoppers differently, quote it, and read what
 * the shopper's widget reads, as a partner still on API version 2025-01-01 (D44) writes it. How
 * to upgrade to the latest version: `/docs/versions` (the latest form is
 * sdk/examples/05-cohort-pricing-and-quote.ts).
 *
 *   SVC_BASE_URL=… SVC_CLIENT_ID=svc_app_… SVC_CLIENT_SECRET=svc_secret_… SVC_STORE_ID=st_… \
 *   node --import tsx sdk/examples/2025-01-01/05-cohort-pricing-and-quote.ts
 *
 * On 2025-01-01 the `/v2` answers are the resource itself (no `{data}`), a context is created
 * with a `variantKey` of its own, fixed amounts read `flat`, and a quote answers 200, not 201.
 * The widget's public read has no version. In your code, import from
 * '@protection-service/sdk/versions/2025-01-01' and '@protection-service/sdk'.
 */
import { clientCredentials, ProtectionApiError, unwrap } from '../../src/index';
import { createClient } from '../../src/versions/2025-01-01';
import { env } from '../env';
import { logDeprecation } from './deprecation';

const { baseUrl, clientId, clientSecret, storeId } = env();
const client = createClient({
  baseUrl,
  auth: clientCredentials({ clientId, clientSecret, storeId }),
  middleware: [logDeprecation],
});

// The app's one context on this store, keyed as 2025-01-01 asks: create it once, then reuse it.
const created = await client.settings.createContext({ body: { name: 'Pricing experiment', variantKey: 'main' } });
const context = created.status === 201 ? created.body : unwrap(await client.settings.listContexts())[0]!;
console.log(`context ${context.name}, variantKey ${context.variantKey}`);

const variantKey = `cheap-${Date.now()}`;
const priceSet = unwrap(
  await client.cohorts.createPriceSet({
    params: { contextId: context.id },
    body: {
      variantKey,
      type: 'SHIPPING',
      rules: [
        { min: 0, max: 100, terms: { customer: { amount: 1.5, type: 'flat' } } },
        { min: 100, max: 10_000, terms: { customer: { amount: 2, type: 'percentage' } } },
      ],
    },
  }),
);
const terms = priceSet.rules.map((r) => `${r.terms.customer?.type} ${r.terms.customer?.amount}`);
console.log(`price set terms: ${terms.join(', ')}`);

// A quote answers 200 on 2025-01-01 (201 on later versions): check the status you rely on.
const quoted = await client.quote.create({
  body: { policyType: 'SHIPPING', currency: 'USD', orderTotal: 150, variantKey },
});
if (quoted.status !== 200) throw new ProtectionApiError(quoted.status, quoted.body, quoted.headers);
const quote = quoted.body;
console.log(`quote answered ${quoted.status}`);
console.log(`quote for 150.00: premium ${quote.premium} (${quote.source}, cohort ${quote.partnerVariantKey})`);

// What the storefront widget reads, anonymously (no version): the cohort picked by two headers.
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
