import { type AppRoute, checkZodSchema } from '@ts-rest/core';
import { type ZodTypeAny, z } from 'zod';
import { fastPath, firstProblem, outsideRange, packageVersion } from './fast-paths';

const on = fastPath({
  name: 'compiled-schema',
  guard: () =>
    firstProblem(
      () => outsideRange('zod', packageVersion('zod'), '3.22.0', '4.0.0'),
      () => outsideRange('@ts-rest/core', packageVersion('@ts-rest/core'), '3.45.0', '4.0.0'),
      selfTest,
    ),
});

/**
 * A compiled schema, validated the way ts-rest validates a request, must accept and refuse what
 * zod does: a zod whose definitions read differently, or a ts-rest that no longer validates
 * through `safeParse`, would otherwise let a request through unchecked.
 */
function selfTest(): string | undefined {
  const schema = z
    .object({
      name: z.string().min(2).max(5),
      count: z.number().int().min(1).default(1),
      tags: z.array(z.string()),
      at: z.string().datetime({ offset: true }).optional(),
    })
    .strict();
  const compiled = compiledSchema(schema);
  const samples: unknown[] = [
    { name: 'ab', tags: [] },
    { name: 'a', tags: [] },
    { name: 'ab', tags: [1] },
    { name: 'ab', tags: [], at: '2026-01-31T12:00:00.000+01:00' },
    { name: 'ab', tags: [], at: '2026-01-31 12:00' },
    {},
    null,
  ];
  for (const sample of samples) {
    const mine = checkZodSchema(sample, compiled);
    const zods = schema.safeParse(sample);
    const same =
      mine.success === zods.success && (!mine.success || JSON.stringify(mine.data) === JSON.stringify(zods.data));
    if (!same) {
      return `a compiled check and zod disagree on ${JSON.stringify(sample)}`;
    }
  }
  return undefined;
}

/**
 * The contract's request schemas, compiled into plain checks for the common case: a request
 * that is valid. zod v3 builds a context, a status and a result object for every node it
 * visits, which for a body of 50 line items cost more than the rest of the route (POST
 * /v2/quote). A compiled check accepts exactly what zod accepts and gives the value zod would
 * give (defaults applied, unknown keys stripped or refused as the schema says, key order
 * kept); whatever it does not accept goes to zod itself, so a refused request is refused with
 * zod's own issues (D2), byte for byte. A kind of schema it does not know is handed to zod as
 * a whole, so compiling never changes what is accepted.
 */

/** What a check answers for a value it does not accept (zod then decides, and says why). */
const REFUSED: unique symbol = Symbol('refused');
type Check = (value: unknown) => unknown;

/** zod v3's internals read here: the definition every schema carries. */
interface Def {
  typeName: string;
  coerce?: boolean;
  checks?: {
    kind: string;
    value?: number;
    inclusive?: boolean;
    regex?: RegExp;
    precision?: number | null;
    offset?: boolean;
    local?: boolean;
  }[];
  [key: string]: unknown;
}
const defOf = (schema: ZodTypeAny): Def => schema._def as Def;

/** zod's own answer for a value, as a check: the kinds compiled below do without it. */
function byZod(schema: ZodTypeAny): Check {
  return (value) => {
    const result = schema.safeParse(value);
    return result.success ? result.data : REFUSED;
  };
}

/** zod's regular expression of a datetime check, where the installed zod exports it. */
const datetimeRegex = (
  z as { datetimeRegex?: (check: { precision: number | null; offset: boolean; local: boolean }) => RegExp }
).datetimeRegex;

/** What zod calls an object: not null, an array, a promise, a Map, a Set or a Date. */
function isObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as { then?: unknown; catch?: unknown };
  if (typeof v.then === 'function' && typeof v.catch === 'function') return false;
  return !(value instanceof Map || value instanceof Set || value instanceof Date);
}

function compileString(schema: ZodTypeAny, def: Def): Check {
  if (def.coerce) return byZod(schema);
  // A datetime check is zod's own regular expression (zod 3.23 on), built once here where zod
  // builds it for every value it checks.
  const checks = (def.checks ?? []).map((c) =>
    c.kind === 'datetime' && datetimeRegex
      ? {
          kind: 'regex',
          regex: datetimeRegex({ precision: c.precision ?? null, offset: !!c.offset, local: !!c.local }),
        }
      : c,
  );
  if (!checks.every((c) => ['min', 'max', 'length', 'regex'].includes(c.kind))) return byZod(schema);
  return (value) => {
    if (typeof value !== 'string') return REFUSED;
    for (const c of checks) {
      switch (c.kind) {
        case 'min':
          if (value.length < c.value!) return REFUSED;
          break;
        case 'max':
          if (value.length > c.value!) return REFUSED;
          break;
        case 'length':
          if (value.length !== c.value) return REFUSED;
          break;
        default:
          c.regex!.lastIndex = 0;
          if (!c.regex!.test(value)) return REFUSED;
      }
    }
    return value;
  };
}

function compileNumber(schema: ZodTypeAny, def: Def): Check {
  if (def.coerce) return byZod(schema);
  const checks = def.checks ?? [];
  if (!checks.every((c) => ['int', 'min', 'max', 'finite'].includes(c.kind))) return byZod(schema);
  return (value) => {
    if (typeof value !== 'number' || Number.isNaN(value)) return REFUSED;
    for (const c of checks) {
      switch (c.kind) {
        case 'int':
          if (!Number.isInteger(value)) return REFUSED;
          break;
        case 'min':
          if (c.inclusive ? value < c.value! : value <= c.value!) return REFUSED;
          break;
        case 'max':
          if (c.inclusive ? value > c.value! : value >= c.value!) return REFUSED;
          break;
        default:
          if (!Number.isFinite(value)) return REFUSED;
      }
    }
    return value;
  };
}

function compileArray(def: Def): Check {
  const item = compile(def.type as ZodTypeAny);
  const length = (bound: unknown) => (bound as { value: number } | null)?.value;
  const exact = length(def.exactLength);
  const min = length(def.minLength);
  const max = length(def.maxLength);
  return (value) => {
    if (!Array.isArray(value)) return REFUSED;
    const n = value.length;
    if ((exact !== undefined && n !== exact) || (min !== undefined && n < min) || (max !== undefined && n > max))
      return REFUSED;
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const v = item(value[i]);
      if (v === REFUSED) return REFUSED;
      out[i] = v;
    }
    return out;
  };
}

function compileObject(schema: ZodTypeAny, def: Def): Check {
  const shape = (schema as unknown as { shape: Record<string, ZodTypeAny> }).shape;
  const keys = Object.keys(shape);
  const unknownKeys = def.unknownKeys as 'strict' | 'strip' | 'passthrough';
  if ((def.catchall as ZodTypeAny)._def.typeName !== 'ZodNever' || keys.includes('__proto__')) return byZod(schema);
  const known = new Set(keys);
  const checks = keys.map((key) => compile(shape[key]!));
  return (value) => {
    if (!isObject(value)) return REFUSED;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const v = checks[i]!(value[key]);
      if (v === REFUSED) return REFUSED;
      if (v !== undefined || key in value) out[key] = v;
    }
    if (unknownKeys === 'strip') return out;
    for (const key in value) {
      if (known.has(key)) continue;
      if (unknownKeys === 'strict') return REFUSED;
      if (key !== '__proto__' && value[key] !== undefined) out[key] = value[key];
    }
    return out;
  };
}

/**
 * `.refine` and `.superRefine`: the refinement sees the checked value, as in zod; one that
 * reports an issue (or asks for its path, or is asynchronous) leaves the decision to zod.
 */
function compileRefinement(schema: ZodTypeAny, def: Def): Check {
  const effect = def.effect as { type: string; refinement?: (value: unknown, ctx: unknown) => unknown };
  if (effect.type !== 'refinement') return byZod(schema);
  const inner = compile(def.schema as ZodTypeAny);
  const refinement = effect.refinement!;
  return (value) => {
    const checked = inner(value);
    if (checked === REFUSED) return REFUSED;
    let clean = true;
    const ctx = {
      addIssue() {
        clean = false;
      },
      get path() {
        clean = false;
        return [];
      },
    };
    const result = refinement(checked, ctx);
    return clean && !(result instanceof Promise) ? checked : REFUSED;
  };
}

const compiled = new WeakMap<ZodTypeAny, Check>();

function compile(schema: ZodTypeAny): Check {
  const known = compiled.get(schema);
  if (known) return known;
  const check = compileNew(schema);
  compiled.set(schema, check);
  return check;
}

function compileNew(schema: ZodTypeAny): Check {
  const def = defOf(schema);
  switch (def.typeName) {
    case 'ZodString':
      return compileString(schema, def);
    case 'ZodNumber':
      return compileNumber(schema, def);
    case 'ZodBoolean':
      if (def.coerce) return byZod(schema);
      return (value) => (typeof value === 'boolean' ? value : REFUSED);
    case 'ZodEnum': {
      const values = new Set(def.values as string[]);
      return (value) => (typeof value === 'string' && values.has(value) ? value : REFUSED);
    }
    case 'ZodLiteral': {
      const literal = def.value;
      return (value) => (value === literal ? value : REFUSED);
    }
    case 'ZodOptional': {
      const inner = compile(def.innerType as ZodTypeAny);
      return (value) => (value === undefined ? undefined : inner(value));
    }
    case 'ZodNullable': {
      const inner = compile(def.innerType as ZodTypeAny);
      return (value) => (value === null ? null : inner(value));
    }
    case 'ZodDefault': {
      const inner = compile(def.innerType as ZodTypeAny);
      const defaultValue = def.defaultValue as () => unknown;
      return (value) => inner(value === undefined ? defaultValue() : value);
    }
    case 'ZodArray':
      return compileArray(def);
    case 'ZodObject':
      return compileObject(schema, def);
    case 'ZodEffects':
      return compileRefinement(schema, def);
    case 'ZodBranded':
      return compile(def.type as ZodTypeAny);
    default:
      return byZod(schema);
  }
}

/** A schema as ts-rest uses it (`safeParse`), answering valid input from its compiled check. */
export function compiledSchema<S extends ZodTypeAny>(schema: S): Pick<S, 'safeParse'> {
  const check = compile(schema);
  return {
    safeParse(value: unknown) {
      const checked = check(value);
      return checked === REFUSED ? schema.safeParse(value) : { success: true, data: checked };
    },
  } as Pick<S, 'safeParse'>;
}

const isZod = (value: unknown): value is ZodTypeAny =>
  typeof (value as { safeParse?: unknown } | null)?.safeParse === 'function' &&
  typeof (value as { _def?: unknown })._def === 'object';

/** The route as mounted: its request schemas (path, headers, query, body) compiled (unchanged when the device is off). */
export function withCompiledRequest<R extends AppRoute>(route: R): R {
  if (!on()) return route;
  const out: Record<string, unknown> = { ...route };
  for (const part of ['pathParams', 'headers', 'query', 'body'] as const) {
    const schema = (route as Record<string, unknown>)[part];
    if (isZod(schema)) out[part] = compiledSchema(schema);
  }
  return out as R;
}
