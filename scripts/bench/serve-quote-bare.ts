/**
 * The baseline of the quote benchmark: a bare node:http server that parses the same body
 * with the same zod schema and prices it with the same engine (exact decimals, D38) from a
 * fixed rule set (BENCH_RULES as JSON), answering 201 {data: quote} on PORT. What the
 * service does beyond this (routing, auth, rate limit, the rule-set query, envelope) is what
 * the comparison measures.
 */
import { createServer } from 'node:http';
import { ZQuoteRequest } from '@protection-service/contract';
import type { PriceRuleRow } from '../../server/src/db/schema';
import { priceQuote } from '../../server/src/domain/partner/quote';

const rules = JSON.parse(process.env.BENCH_RULES ?? '[]') as PriceRuleRow[];
createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const parsed = ZQuoteRequest.safeParse(JSON.parse(Buffer.concat(chunks).toString()));
    if (!parsed.success) {
      res.writeHead(400).end();
      return;
    }
    const body = parsed.data;
    const quote = {
      policyType: body.policyType,
      currency: body.currency ?? 'USD',
      ...priceQuote(rules, body, body.currency ?? 'USD'),
      ruleSetId: 'rs_bench',
      duration: body.duration ?? null,
      source: 'merchant',
      partnerVariantKey: null,
    };
    const json = JSON.stringify({ data: quote });
    res.writeHead(201, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(json),
    });
    res.end(json);
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));
