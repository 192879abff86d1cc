import type { z } from 'zod';
import { ZVariantKey } from '../../schemas/common';
import { ZContextCreateBody, ZPartnerContext, ZPartnerContextResolved } from '../../schemas/settings';
import { type Answer, type RouteChange, replaceSchema, type VersionChange, valuesAt } from '../change';

/** What a context created on a later version reads as its `variantKey` on 2025-01-01. */
export const DEFAULT_CONTEXT_VARIANT_KEY = 'default';

const variantKey = ZVariantKey.describe(
  'The key given when the context was created; `default` for a context created on a later version',
);
export const ZPartnerContextKeyed = ZPartnerContext.extend({ variantKey }).strict();
export const ZPartnerContextResolvedKeyed = ZPartnerContextResolved.extend({ variantKey }).strict();
export const ZContextCreateBodyKeyed = ZContextCreateBody.extend({
  variantKey: ZVariantKey.describe('The context key (pattern `^[a-zA-Z0-9_.:-]{1,64}$`)'),
}).strict();

const SWAPS: [z.ZodTypeAny, z.ZodTypeAny][] = [
  [ZPartnerContext, ZPartnerContextKeyed],
  [ZPartnerContextResolved, ZPartnerContextResolvedKeyed],
];

/**
 * D27 data versioning: on 2025-01-01 a context is created with a `variantKey` and carries it
 * in every answer. The key is kept beside the context by the server's version layer (the
 * domain never sees it); a store still holds one context per app.
 */
export const contextVariantKey: VersionChange = {
  id: 'context-variant-key',
  version: '2025-01-01',
  title: 'Partner contexts carry a `variantKey`',
  description:
    'Creating a partner context requires `variantKey` and `name`, and every context answer carries the `variantKey` it was created with (`default` for a context created on a later version). Unlike the earlier revision, a store still holds one context per app: a second create answers 409 whatever its `variantKey`.',
  why: 'A context is the settings of one app on one store; cohorts (A/B variants) are keyed by their own `variantKey` on price sets and widget configs.',
  upgrade:
    'Create the context with `name` only, and key cohorts by the `variantKey` of their price sets and widget configs.',
  route(key, route) {
    const before = route.responses as Record<number, z.ZodTypeAny>;
    const responses: Record<number, z.ZodTypeAny> = {};
    for (const [status, schema] of Object.entries(before)) {
      const replaced = SWAPS.reduce((s, [from, to]) => replaceSchema(s, from, to), schema);
      if (replaced !== schema) responses[Number(status)] = replaced;
    }
    const create = key === 'settings.createContext';
    if (!create && Object.keys(responses).length === 0) return undefined;
    const change: RouteChange = {
      responses,
      async down(answer: Answer, data) {
        const schema = before[answer.status];
        if (!schema || !(answer.status in responses)) return answer;
        const body = JSON.parse(JSON.stringify(answer.body)) as unknown;
        const contexts = SWAPS.flatMap(([from]) => valuesAt(schema, body, from)) as Record<string, unknown>[];
        const keys = await data.contextVariantKeys(contexts.map((c) => String(c.id)));
        // Added last, where the old schema (an extension of the newest) has it.
        for (const c of contexts) c.variantKey = keys.get(String(c.id)) ?? DEFAULT_CONTEXT_VARIANT_KEY;
        return { status: answer.status, body };
      },
    };
    if (!create) return change;
    return {
      ...change,
      body: ZContextCreateBodyKeyed,
      up(request, state) {
        const { variantKey: given, ...body } = request.body as { variantKey: string; name: string };
        state.variantKey = given;
        return { ...request, body };
      },
      async afterNewer(answer, state, data) {
        const created = answer.body as { data?: { id?: unknown } } | undefined;
        const id = created?.data?.id;
        if (answer.status === 201 && typeof id === 'string' && typeof state.variantKey === 'string') {
          await data.rememberContextVariantKey(id, state.variantKey);
        }
      },
    };
  },
};
