import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Contract, VARIANT_KEY_PATTERN, ZInsuranceQuote, ZPublicWidgetConfig } from '@protection-service/contract';
import type { z } from 'zod';
import { type Cohort, type PublicRead, readInsurance, readPartnerWidgets } from '../domain/partner/public-reads';
import { ifNoneMatchMatches } from '../http/conditional';
import { PUBLIC_CACHE_CONTROL } from '../http/public-cache';
import type { GroupHandlers, RouteContext } from './context';

const ZPublicWidgets = ZPublicWidgetConfig.array();

/**
 * D29: the cohort the shopper read's headers select, or undefined when either header is
 * missing or malformed (the read then falls back silently to merchant defaults). With neither
 * header, the same pair as query parameters selects it (D55): a browser sends a read without
 * custom headers with no CORS preflight, so the storefront element's read stays one request.
 */
function requestCohort(
  headers: { 'x-svc-partner-app-id'?: string; 'x-svc-partner-variant'?: string },
  query: { partnerAppId?: string | undefined; partnerVariant?: string | undefined },
) {
  const fromHeaders = headers['x-svc-partner-app-id'] !== undefined || headers['x-svc-partner-variant'] !== undefined;
  const applicationId = fromHeaders ? headers['x-svc-partner-app-id'] : query.partnerAppId;
  const variantKey = fromHeaders ? headers['x-svc-partner-variant'] : query.partnerVariant;
  if (applicationId === undefined || variantKey === undefined) return undefined;
  if (!VARIANT_KEY_PATTERN.test(applicationId) || !VARIANT_KEY_PATTERN.test(variantKey)) return undefined;
  return { applicationId, variantKey } satisfies Cohort;
}

/** Unauthenticated storefront reads (D29): cached in memory, ETag and 304, not wrapped (D1). */
export function publicHandlers({ db, publicCache, offerTokens }: RouteContext): GroupHandlers<Contract['public']> {
  /**
   * Reads an answer, parses it against its contract schema once per cache fill (so the
   * remembered bytes are exactly what the contract says), remembers it and answers it.
   */
  async function answer<T>(
    req: IncomingMessage & { url: string },
    res: ServerResponse,
    schema: z.ZodType<T, z.ZodTypeDef, unknown>,
    read: () => Promise<PublicRead<T>>,
  ): Promise<{ status: 200; body: T } | { status: 304; body: undefined }> {
    const mark = publicCache.mark;
    const found = await read();
    const body = schema.parse(found.body);
    const etag = publicCache.remember(req.url, req.headers, body, found.storeId, mark);
    res.setHeader('cache-control', PUBLIC_CACHE_CONTROL);
    res.setHeader('etag', etag);
    if (ifNoneMatchMatches(req.headers['if-none-match'], etag)) return { status: 304, body: undefined };
    return { status: 200, body };
  }

  return {
    async getInsurance({ query, headers, req, res }) {
      return answer(req, res, ZInsuranceQuote, () =>
        readInsurance(db, query, {
          subtotal: query.subtotal,
          cohort: requestCohort(headers, query),
          fallback: true,
          offer: { placement: query.placement ?? 'cart', tokens: offerTokens },
        }),
      );
    },
    async getPartnerInsurance({ params, query, req, res }) {
      const cohort = { applicationId: params.applicationId, variantKey: query.key };
      return answer(req, res, ZInsuranceQuote, () =>
        readInsurance(db, query, { subtotal: query.subtotal, cohort, fallback: false }),
      );
    },
    async getPartnerWidgets({ params, query, req, res }) {
      const cohort = { applicationId: params.applicationId, variantKey: query.key };
      return answer(req, res, ZPublicWidgets, () => readPartnerWidgets(db, query, cohort, query.type));
    },
  };
}
