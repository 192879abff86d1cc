/**
 * The by-hand baseline of the quote benchmark: node:http parsing the body with JSON.parse,
 * checking it with hand-written tests (the same rules as the contract's schema for the
 * fields the benchmark sends) and pricing it with the same engine from a fixed rule set,
 * answering 201 {data: quote}. The floor of what any server doing this work can cost.
 */
import type { TQuoteRequest } from '@protection-service/contract';
import { serveQuoteBaseline } from './quote-baseline';

const AMOUNT = /^\d{1,12}(\.\d{1,4})?$/;

function checked(body: unknown): TQuoteRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  if (b.currency !== undefined && (typeof b.currency !== 'string' || !/^[A-Z]{3}$/.test(b.currency))) return undefined;
  if (!Array.isArray(b.lineItems) || b.lineItems.length > 500) return undefined;
  const lineItems = [];
  for (const item of b.lineItems as Record<string, unknown>[]) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { id, price, quantity, isShippable } = item;
    if (id !== undefined && (typeof id !== 'string' || id.length === 0 || id.length > 255)) return undefined;
    if (typeof price !== 'number' || price < 0 || !AMOUNT.test(String(price))) return undefined;
    if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 0 || quantity > 1_000_000)
      return undefined;
    if (isShippable !== undefined && typeof isShippable !== 'boolean') return undefined;
    lineItems.push({ id: id as string | undefined, price, quantity, isShippable: isShippable ?? true });
  }
  return { lineItems, policyType: 'SHIPPING', currency: b.currency as string | undefined } as TQuoteRequest;
}

serveQuoteBaseline((raw) => checked(JSON.parse(raw)));
