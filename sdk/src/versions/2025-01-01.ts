// `@protection-service/sdk/versions/2025-01-01`: the client typed for API version 2025-01-01
// (D44), the earlier revision: bodies without the `{data}` envelope, price rule terms reading
// `flat`, partner contexts with a `variantKey`. It sends `Api-Version: 2025-01-01` on every
// route that takes an app access token.
import { type ClientOptions, createClient as createVersionedClient } from '../client';
import type { Client } from '../generated/2025-01-01';

export type * from '../generated/2025-01-01';

/** The version this entry point's client is typed for and asks for. */
export const API_VERSION = '2025-01-01' as const;

/**
 * A client typed by API version 2025-01-01. Deprecated: this version is served until
 * 2027-12-01; see `/docs/versions#2025-01-01` for what changed and how to upgrade.
 *
 * @example
 * const client = createClient({ baseUrl: 'https://api.example.com', accessToken });
 * const res = await client.pricing.list();
 * if (res.status === 200) console.log(res.body[0]?.rules[0]?.terms.customer?.type); // 'flat' | 'percentage'
 */
export function createClient(
  options: Omit<ClientOptions, 'apiVersion'>,
): Client & { readonly livemode: boolean | undefined } {
  return createVersionedClient({ ...options, apiVersion: API_VERSION }) as unknown as Client & {
    readonly livemode: boolean | undefined;
  };
}
