/**
 * The baseline of the quote benchmark: a bare node:http server that parses the same body
 * with the same zod schema and prices it with the same engine (exact decimals, D38) from a
 * fixed rule set, answering 201 {data: quote}. What the service does beyond this (routing,
 * auth, rate limit, the rule-set query, envelope) is what the comparison measures.
 */
import { ZQuoteRequest } from '@protection-service/contract';
import { serveQuoteBaseline } from './quote-baseline';

serveQuoteBaseline((raw) => {
  const parsed = ZQuoteRequest.safeParse(JSON.parse(raw));
  return parsed.success ? parsed.data : undefined;
});
