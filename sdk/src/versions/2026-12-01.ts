// `@protection-service/sdk/versions/2026-12-01`: the client typed for API version 2026-12-01
// (D44), which differs from 2027-01-15 in one detail: claims the service filed from tracking
// (D54) read `claimType: null` there. It sends `Api-Version: 2026-12-01` on every route that
// takes an app access token.
import { type ClientOptions, createClient as createVersionedClient } from '../client';
import type { Client } from '../generated/2026-12-01';

export type * from '../generated/2026-12-01';

/** The version this entry point's client is typed for and asks for. */
export const API_VERSION = '2026-12-01' as const;

/**
 * A client typed by API version 2026-12-01; see `/docs/versions#2026-12-01` for what its
 * successor changed.
 *
 * @example
 * const client = createClient({ baseUrl: 'https://api.example.com', accessToken });
 * const res = await client.claims.get({ params: { claimId } });
 * if (res.status === 200) console.log(res.body.data.claimType); // never LOST_IN_TRANSIT or DELAYED
 */
export function createClient(
  options: Omit<ClientOptions, 'apiVersion'>,
): Client & { readonly livemode: boolean | undefined } {
  return createVersionedClient({ ...options, apiVersion: API_VERSION }) as unknown as Client & {
    readonly livemode: boolean | undefined;
  };
}
