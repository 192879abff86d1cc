/**
 * The framework floor of the quote benchmark: Express 4 and ts-rest serving the contract's
 * quote route alone, with the service's Express settings and JSON body reader, the same
 * validation (body and headers, by ts-rest) and the same engine; no authentication, rate
 * limit, idempotency, request id, logging or metrics. The service above this is what its
 * request pipeline costs; this above the bare server is what Express and ts-rest cost.
 */
import { contract } from '@protection-service/contract';
import { createExpressEndpoints } from '@ts-rest/express';
import { bodyParser } from '../../server/src/http/body';
import { createAppServer, expressApp } from '../../server/src/http/server';
import { benchQuote } from './quote-baseline';

const app = expressApp();
app.use(bodyParser(new Set()));
createExpressEndpoints(
  { quote: contract.quote },
  {
    quote: {
      create: async ({ body }: { body: Parameters<typeof benchQuote>[0] }) => ({
        status: 201,
        body: { data: benchQuote(body) },
      }),
    },
  } as never,
  app,
  { logInitialization: false, jsonQuery: false },
);
createAppServer()
  .serve(app)
  .listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));
