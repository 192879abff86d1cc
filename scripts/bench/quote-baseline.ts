/**
 * What the quote baselines share: the fixed rule set (BENCH_RULES as JSON), the answer
 * priced with the service's engine, and a bare node:http server on PORT that reads the body,
 * hands it to `check` (undefined: 400) and answers 201 {data: quote}. The node:http
 * baselines differ only in how they check the body.
 */
import { createServer } from 'node:http';
import type { TQuoteRequest } from '@protection-service/contract';
import type { PriceRuleRow } from '../../server/src/db/schema';
import { priceQuote } from '../../server/src/domain/partner/quote';

const rules = JSON.parse(process.env.BENCH_RULES ?? '[]') as PriceRuleRow[];

/** The answer to a checked request, priced from BENCH_RULES. */
export function benchQuote(body: TQuoteRequest) {
  const currency = body.currency ?? 'USD';
  return {
    policyType: body.policyType,
    currency,
    ...priceQuote(rules, body, currency),
    ruleSetId: 'rs_bench',
    duration: body.duration ?? null,
    source: 'merchant',
    partnerVariantKey: null,
  };
}

export function serveQuoteBaseline(check: (raw: string) => TQuoteRequest | undefined): void {
  createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: TQuoteRequest | undefined;
      try {
        body = check(Buffer.concat(chunks).toString());
      } catch {
        body = undefined;
      }
      if (!body) {
        res.writeHead(400).end();
        return;
      }
      const json = JSON.stringify({ data: benchQuote(body) });
      res.writeHead(201, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(json),
      });
      res.end(json);
    });
  }).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
  process.on('SIGTERM', () => process.exit(0));
}
