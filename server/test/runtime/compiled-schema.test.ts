import { API_VERSIONS, contractFor, ZQuoteRequest } from '@protection-service/contract';
import { describe, expect, it } from 'vitest';
import type { ZodTypeAny } from 'zod';
import { seeded } from '../../../contract/test/versions/arbitrary';
import { compiledSchema } from '../../src/runtime/compiled-schema';

const STRINGS = [
  '',
  'a',
  'USD',
  'usd',
  'li-1',
  'x'.repeat(300),
  '2026-03-14T09:26:53Z',
  'https://a.example.com/cb',
  'P3Y',
];
const NUMBERS = [0, 1, -1, 1.5, 10.25, 3, 1e12, 1e12 + 1, 1_000_000, 1_000_001, 0.00001, 100];
const OTHERS: unknown[] = [null, true, 'x', 7, [], {}];

/** A value shaped like what `schema` takes, valid or nearly so: the inputs clients send. */
function sample(schema: ZodTypeAny, rnd: () => number, depth = 0): unknown {
  const pick = <T>(list: readonly T[]) => list[Math.floor(rnd() * list.length)]!;
  if (rnd() < 0.04) return pick(OTHERS);
  const def = schema._def as Record<string, any>;
  switch (def.typeName) {
    case 'ZodString':
      return pick(STRINGS);
    case 'ZodNumber':
      return pick(NUMBERS);
    case 'ZodBoolean':
      return rnd() < 0.5;
    case 'ZodEnum':
      return rnd() < 0.9 ? pick(def.values) : 'BOGUS';
    case 'ZodLiteral':
      return def.value;
    case 'ZodOptional':
    case 'ZodDefault':
      return rnd() < 0.3 ? undefined : sample(def.innerType, rnd, depth);
    case 'ZodNullable':
      return rnd() < 0.2 ? null : sample(def.innerType, rnd, depth);
    case 'ZodEffects':
      return sample(def.schema, rnd, depth);
    case 'ZodBranded':
      return sample(def.type, rnd, depth);
    case 'ZodUnion':
      return sample(pick(def.options), rnd, depth);
    case 'ZodDiscriminatedUnion':
      return sample(pick(def.options), rnd, depth);
    case 'ZodArray':
      return depth > 4 ? [] : Array.from({ length: Math.floor(rnd() * 4) }, () => sample(def.type, rnd, depth + 1));
    case 'ZodObject': {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries((schema as unknown as { shape: Record<string, ZodTypeAny> }).shape)) {
        if (rnd() < 0.05) continue;
        const v = depth > 4 ? undefined : sample(value, rnd, depth + 1);
        if (v !== undefined) out[key] = v;
      }
      if (rnd() < 0.05) out.unexpected = 1;
      return out;
    }
    default:
      return pick([...OTHERS, ...STRINGS, ...NUMBERS]);
  }
}

/** Same success, same value (key order included), or the same issues. */
function expectSameAnswer(schema: ZodTypeAny, input: unknown): boolean {
  const want = schema.safeParse(input);
  const got = compiledSchema(schema).safeParse(input);
  expect(got.success).toBe(want.success);
  if (want.success && got.success) {
    expect(got.data).toStrictEqual(want.data);
    expect(JSON.stringify(got.data)).toBe(JSON.stringify(want.data));
  } else {
    // Compared as written: a union's issues carry the ZodErrors of its members, whose stacks
    // differ between two parses (a `claimState` given once or repeated, D51).
    expect(JSON.parse(JSON.stringify(got.error?.issues))).toStrictEqual(JSON.parse(JSON.stringify(want.error?.issues)));
  }
  return want.success;
}

describe('compiled request schemas', () => {
  it('answer a quote body as zod does: valid, defaulted, stripped of nothing, refused with the same issues', () => {
    const lineItems = Array.from({ length: 50 }, (_, i) => ({
      id: `li-${i}`,
      price: 10 + i * 1.25,
      quantity: 1 + (i % 3),
      ...(i % 7 === 0 ? { isShippable: false } : {}),
    }));
    const inputs: unknown[] = [
      { currency: 'USD', lineItems },
      { orderTotal: 10 },
      { orderTotal: 10, policyType: 'EXTENDED_WARRANTY', duration: 'P2Y' },
      { orderTotal: 10, policyType: 'EXTENDED_WARRANTY' },
      { orderTotal: 10, duration: 'P2Y' },
      {},
      { lineItems: [{ price: 1, quantity: 1.5 }] },
      { lineItems: [{ price: -1, quantity: 1 }] },
      { lineItems: [{ price: 1, quantity: 1, extra: true }] },
      { lineItems: Array.from({ length: 501 }, () => ({ price: 1, quantity: 1 })) },
      { orderTotal: 10, currency: 'usd' },
      { orderTotal: 10, variantKey: 'bad key' },
      { orderTotal: 10, unknown: 1 },
      null,
      [],
      'x',
    ];
    for (const input of inputs) expectSameAnswer(ZQuoteRequest, input);
  });

  it('answer every request schema of every version as zod does, on thousands of near-valid inputs', () => {
    let compared = 0;
    let valid = 0;
    for (const version of API_VERSIONS) {
      for (const { route } of contractFor(version).routes.values()) {
        for (const part of ['pathParams', 'headers', 'query', 'body'] as const) {
          const schema = (route as Record<string, unknown>)[part] as ZodTypeAny | undefined;
          if (typeof schema?.safeParse !== 'function') continue;
          for (let seed = 0; seed < 60; seed++) {
            if (expectSameAnswer(schema, sample(schema, seeded(seed)))) valid++;
            compared++;
          }
        }
      }
    }
    // Both ways are exercised: inputs accepted (the compiled path) and refused (zod's issues).
    expect(valid).toBeGreaterThan(compared / 5);
    expect(compared - valid).toBeGreaterThan(compared / 5);
  });
});
