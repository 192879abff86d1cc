/**
 * The baseline of the authenticated read: a plain Express 4 route answering fixed bytes
 * (BENCH_BODY, BENCH_HEADERS as JSON) at BENCH_PATH on PORT. What the service does beyond
 * this (authentication, rate limit, scopes, validation, logging, the cached settings) is what
 * the comparison measures. BENCH_APP_SERVER=1 serves it the way the service is served
 * (http/server.ts), to show what that alone is worth.
 */
import express from 'express';
import { createAppServer } from '../../server/src/http/server';

const body = Buffer.from(process.env.BENCH_BODY ?? '');
const headers = JSON.parse(process.env.BENCH_HEADERS ?? '{}') as Record<string, string>;
const app = express();
app.get(process.env.BENCH_PATH ?? '/', (_req, res) => {
  res.set(headers).send(body);
});
const server = process.env.BENCH_APP_SERVER === '1' ? createAppServer().serve(app) : app;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));
