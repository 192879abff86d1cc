import { type Contract, contract } from '@protection-service/contract';
import { initClient } from '@ts-rest/core';

export interface ClientOptions {
  /** Where the service runs, for example `https://api.example.com`. */
  baseUrl: string;
  /** An access token (`svc_at_…`) sent as `Authorization: Bearer`. */
  accessToken?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** A fetch implementation; the global one by default. */
  fetch?: typeof fetch;
}

/**
 * A client typed by the contract: `client.orders.get({ params: { sourceOrderId } })` answers
 * `{ status, body, headers }` where `body` is typed for each status the route can answer.
 */
export function createClient(options: ClientOptions) {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  return initClient(contract, {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    baseHeaders: {
      ...options.headers,
      ...(options.accessToken ? { authorization: `Bearer ${options.accessToken}` } : {}),
    },
    throwOnUnknownStatus: true,
    validateResponse: false,
    api: async ({ path, method, headers, body }) => {
      const response = await fetchImpl(path, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      if (text && (response.headers.get('content-type') ?? '').includes('json')) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
  });
}

export type Client = ReturnType<typeof createClient>;
export type { Contract };
export * from '@protection-service/contract';
