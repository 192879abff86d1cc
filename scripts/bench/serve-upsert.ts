/**
 * The baseline of the order write: node:http reading the JSON body of PUT /v1/orders/:id and
 * upserting the order row in one `pg` statement (a pool of 10, as the service's), answering
 * 200 with a small JSON body. Env: PORT, BENCH_DATABASE_URL, BENCH_STORE_ID. What the service
 * does beyond this (auth, limits, validation, line items, policy, event, deliveries, the
 * envelope) is what the comparison measures.
 */
import { createServer } from 'node:http';
import pg from 'pg';
import { newId } from '../../server/src/lib/ids';

const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 10 });
const storeId = process.env.BENCH_STORE_ID;
const UPSERT = `
  insert into orders (id, store_id, source_order_id, source_order_number, currency, source_created_at,
    platform_id, premium_paid, total, subtotal, tax, shipping_cost, customer_email, customer_name)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
  on conflict (store_id, source_order_id) where deleted_at is null do update set
    source_order_number = excluded.source_order_number, currency = excluded.currency,
    source_created_at = excluded.source_created_at, platform_id = excluded.platform_id,
    premium_paid = excluded.premium_paid, total = excluded.total, subtotal = excluded.subtotal,
    tax = excluded.tax, shipping_cost = excluded.shipping_cost,
    customer_email = excluded.customer_email, customer_name = excluded.customer_name, updated_at = now()`;

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const o = JSON.parse(Buffer.concat(chunks).toString());
    const sourceOrderId = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
    pool
      .query(UPSERT, [
        newId('ord'),
        storeId,
        sourceOrderId,
        o.sourceOrderNumber,
        o.currency,
        o.sourceCreatedAt,
        o.platformId,
        o.premiumPaid,
        o.total,
        o.subtotal,
        o.tax,
        o.shippingCost,
        o.customerEmail,
        o.customerName,
      ])
      .then(() => {
        const json = '{"data":{"ok":true}}';
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': json.length });
        res.end(json);
      })
      .catch(() => res.writeHead(500).end());
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));
