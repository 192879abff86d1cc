import { z } from 'zod';

/**
 * Seeded random values of a zod schema, for the property tests of the version changes (D44):
 * no property-testing library is in the lock file, so a small generator walks the schema
 * kinds the contract uses. A value it makes may still fail a refinement; callers keep the
 * values that parse and require a floor of them, so a test can never pass on nothing.
 */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Strings tried, in turn, against a pattern or format a string must have. */
const CANDIDATES = [
  'a1',
  'US',
  'USD',
  'test-a',
  'default',
  'Ab_1.x:y-z',
  'ctx_1',
  'a@example.com',
  'https://a.example',
];

export function arbitrary(schema: z.ZodTypeAny, random: () => number, depth = 0): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const inner = (s: z.ZodTypeAny) => arbitrary(s, random, depth + 1);
  if (schema instanceof z.ZodObject) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema.shape as Record<string, z.ZodTypeAny>)) {
      if (value.isOptional() && random() < 0.3) continue;
      const v = inner(value);
      if (v !== undefined) out[key] = v;
    }
    return out;
  }
  if (schema instanceof z.ZodArray) {
    const min = schema._def.minLength?.value ?? 0;
    const max = Math.min(schema._def.maxLength?.value ?? 3, depth > 4 ? min : 3);
    const n = min + Math.floor(random() * (Math.max(max, min) - min + 1));
    return Array.from({ length: n }, () => inner(schema._def.type));
  }
  if (schema instanceof z.ZodString) return stringOf(schema, random);
  if (schema instanceof z.ZodNumber) {
    const checks = schema._def.checks;
    const min = (checks.find((c) => c.kind === 'min') as { value: number } | undefined)?.value ?? 0;
    const max = (checks.find((c) => c.kind === 'max') as { value: number } | undefined)?.value ?? 1000;
    const int = checks.some((c) => c.kind === 'int');
    const value = min + random() * (Math.min(max, min + 1000) - min);
    return int ? Math.floor(value) : Math.round(value * 100) / 100;
  }
  if (schema instanceof z.ZodBoolean) return random() < 0.5;
  if (schema instanceof z.ZodEnum) return pick(schema._def.values as string[]);
  if (schema instanceof z.ZodNativeEnum) return pick(Object.values(schema._def.values as object));
  if (schema instanceof z.ZodLiteral) return schema._def.value;
  if (schema instanceof z.ZodNull) return null;
  if (schema instanceof z.ZodNullable) return random() < 0.25 ? null : inner(schema._def.innerType);
  if (schema instanceof z.ZodOptional) return random() < 0.25 ? undefined : inner(schema._def.innerType);
  if (schema instanceof z.ZodDefault) return inner(schema._def.innerType);
  if (schema instanceof z.ZodEffects) return inner(schema._def.schema);
  if (schema instanceof z.ZodPipeline) return inner(schema._def.in);
  if (schema instanceof z.ZodUnion || schema instanceof z.ZodDiscriminatedUnion) {
    return inner(pick(schema._def.options as z.ZodTypeAny[]));
  }
  if (schema instanceof z.ZodRecord) return { k: inner(schema._def.valueType) };
  if (schema instanceof z.ZodLazy) return inner(schema._def.getter());
  return 'x';
}

function stringOf(schema: z.ZodString, random: () => number): string {
  const checks = schema._def.checks;
  if (checks.some((c) => c.kind === 'datetime')) {
    return new Date(Date.UTC(2025, 0, 1) + Math.floor(random() * 1e10)).toISOString();
  }
  if (checks.some((c) => c.kind === 'date')) return '2025-01-01';
  const min = (checks.find((c) => c.kind === 'min') as { value: number } | undefined)?.value ?? 1;
  const start = Math.floor(random() * CANDIDATES.length);
  for (let i = 0; i < CANDIDATES.length; i++) {
    const candidate = CANDIDATES[(start + i) % CANDIDATES.length]!;
    if (schema.safeParse(candidate).success) return candidate;
  }
  return 'x'.repeat(Math.max(min, 1));
}
