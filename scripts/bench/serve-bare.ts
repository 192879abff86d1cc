/**
 * The baseline: a bare node:http server answering fixed bytes (BENCH_BODY, BENCH_HEADERS as
 * JSON) on PORT. What the service does beyond this is what the comparison measures.
 */
import { createServer } from 'node:http';

const body = Buffer.from(process.env.BENCH_BODY ?? '');
const headers = JSON.parse(process.env.BENCH_HEADERS ?? '{}') as Record<string, string>;
createServer((_req, res) => {
  res.writeHead(200, { ...headers, 'content-length': body.length });
  res.end(body);
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));
