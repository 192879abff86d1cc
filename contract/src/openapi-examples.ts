/**
 * An example for every request body and success answer of the document, built from each
 * schema with values that read like real data (an order's id, a price, an e-mail address), so
 * that a reader and the reference page see the shape of a call filled in. The contract's tests
 * validate every example against its own schema.
 */

type Schema = Record<string, any>;

const TIMESTAMP = '2026-03-14T09:26:53.000Z';

/** String values by property name (lower case), tried before the generic ones. */
const STRING_BY_NAME: [RegExp, string][] = [
  [/email/, 'jane.doe@example.com'],
  [/currency/, 'USD'],
  [/country/, 'US'],
  [/phone/, '+1 555 0100'],
  [/^(domain|store_url|storeurl|shopdomain)$/, 'shop.example.com'],
  [/(url|uri)s?$/, 'https://shop.example.com/apps/protection'],
  [/^sourceorderid$/, '1001'],
  [/^sourcefulfillmentid$/, 'F-1001'],
  [/^(sku)$/, 'TSHIRT-BLUE-M'],
  [/^(customername|fullname|username)$/, 'Jane Doe'],
  [/firstname/, 'Jane'],
  [/lastname/, 'Doe'],
  [/^(address1|street)$/, '1 Main Street'],
  [/^address2$/, 'Apt 4'],
  [/city/, 'Springfield'],
  [/(zip|postal)/, '12345'],
  [/^(province|region)$/, 'IL'],
  [/(title|productname)/, 'Blue cotton T-shirt'],
  [/(message|note|description|text|body|reason)$/, 'The parcel arrived with the box crushed.'],
  [/^(scope|scopes)$/, 'order:read claim:read'],
  [/code_?verifier/, 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'],
  [/code_?challenge/, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'],
  [/(warrantyperiod|duration)/, 'P1Y'],
  [/(dateof|date$)/, '2026-03-14'],
  [/^(item|lineitem|product|child|offlineitem)name$/, 'Blue cotton T-shirt'],
  [/^(app|store|shop|merchant)?name$/, 'Example Outfitters'],
  [/(^id|id)$/, 'ex_1001'],
];

/** Generic values tried, in order, until one satisfies the schema's pattern and lengths. */
const STRING_FALLBACKS = ['example', 'USD', 'US', 'ex_1001', '49.99', 'P1Y', '+1 555 0100', 'order:read claim:read'];

/** Properties that record an end (cancelled, deleted...): left out of examples of fresh resources. */
const ENDED = /(cancel|delet|remov|archiv|dismiss|revoked)/i;

const NUMBER_BY_NAME: [RegExp, number][] = [
  [/^min/, 0],
  [/^max/, 100],
  [/discount/, 0],
  [/(shippingcost|shipping)/, 4.99],
  [/(tax)/, 3.5],
  [/premium/, 2.49],
  [/(price|amount|total|subtotal|value|cost|fee)/, 49.99],
  [/(quantity|count)/, 1],
  [/(percent|percentage|rate)/, 5],
  [/(seconds|days|minutes|hours)/, 30],
  [/(expires_in|expiresin)/, 3600],
];

export function exampleOf(schema: Schema, components: Record<string, Schema>, key = '', depth = 0): unknown {
  if (depth > 40) return undefined;
  if (schema.$ref) {
    const name = String(schema.$ref).replace('#/components/schemas/', '');
    return exampleOf(components[name] ?? {}, components, key, depth + 1);
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined && schema.default !== null) return schema.default;
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((s: Schema) => exampleOf(s, components, key, depth + 1));
    return parts.every((p: unknown) => p && typeof p === 'object' && !Array.isArray(p))
      ? Object.assign({}, ...parts)
      : parts[0];
  }
  const union = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(union)) return exampleOf(union[0], components, key, depth + 1);
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null) ?? null;
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set((schema.required ?? []) as string[]);
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
        // What has not happened yet to a fresh resource is left out, or null where it must be given.
        // A quote's duration is for warranties; the examples quote shipping insurance.
        if (name === 'duration' && !required.has(name)) continue;
        if (ENDED.test(name)) {
          if (required.has(name) && property.nullable) out[name] = null;
          if (required.has(name) && property.nullable) continue;
          if (!required.has(name)) continue;
        }
        const inner = name === 'name' && /item|product|child/i.test(key) ? `${key.replace(/s$/, '')}Name` : name;
        const value = exampleOf(property, components, inner, depth + 1);
        if (value !== undefined) out[name] = value;
      }
      return out;
    }
    case 'array': {
      const item = exampleOf(schema.items ?? {}, components, key.replace(/s$/, ''), depth + 1);
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => item);
    }
    case 'string':
      return stringExample(schema, key);
    case 'integer':
    case 'number':
      return numberExample(schema, key);
    case 'boolean':
      return true;
    default:
      return undefined;
  }
}

function stringExample(schema: Schema, key: string): string {
  if (schema.format === 'date-time') return TIMESTAMP;
  if (schema.format === 'date') return TIMESTAMP.slice(0, 10);
  if (schema.format === 'email') return 'jane.doe@example.com';
  if (schema.format === 'uuid') return '3f2c9a4e-8b1d-4c6a-9e2f-7a5b1c0d4e6f';
  const lower = key.toLowerCase();
  const named = STRING_BY_NAME.filter(([pattern]) => pattern.test(lower)).map(([, value]) => value);
  if (schema.format === 'uri') named.unshift('https://shop.example.com/apps/protection');
  const fits = (value: string) =>
    (!schema.pattern || new RegExp(schema.pattern, 'u').test(value)) &&
    value.length >= (schema.minLength ?? 0) &&
    value.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY);
  const found = [...named, ...STRING_FALLBACKS].find(fits);
  if (found !== undefined) return found;
  const padded = 'example'.padEnd(schema.minLength ?? 0, 'x').slice(0, schema.maxLength ?? undefined);
  if (fits(padded)) return padded;
  throw new Error(`no example for string ${key}: ${JSON.stringify(schema)}`);
}

function numberExample(schema: Schema, key: string): number {
  const lower = key.toLowerCase();
  let value = NUMBER_BY_NAME.find(([pattern]) => pattern.test(lower))?.[1] ?? 1;
  if (schema.type === 'integer') value = Math.round(value);
  const min = schema.minimum as number | undefined;
  const max = schema.maximum as number | undefined;
  if (min !== undefined && (value < min || (schema.exclusiveMinimum && value === min))) {
    value = schema.exclusiveMinimum ? min + 1 : min;
  }
  if (max !== undefined && (value > max || (schema.exclusiveMaximum && value === max))) {
    value = schema.exclusiveMaximum ? max - 1 : max;
  }
  return value;
}

/**
 * Sets `example` on the JSON content of every request body and success answer that has a
 * schema and no example yet.
 */
export function withExamples(doc: Schema): void {
  const components = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  for (const item of Object.values(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const operation of Object.values(item)) {
      const contents = [
        operation.requestBody?.content,
        ...Object.entries((operation.responses ?? {}) as Record<string, Schema>)
          .filter(([status]) => status.startsWith('2'))
          .map(([, response]) => response.content),
      ];
      for (const content of contents) {
        for (const media of Object.values((content ?? {}) as Record<string, Schema>)) {
          if (media.schema && media.example === undefined) media.example = exampleOf(media.schema, components);
        }
      }
    }
  }
}
