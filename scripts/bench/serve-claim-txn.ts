/**
 * The baseline of claim filing: node:http reading the JSON body of POST /v1/claims/:id and, in
 * one transaction, locking the store's live order row and inserting the claim (a pool of 10, as
 * the service's), answering 200 with a small JSON body. Env: PORT, BENCH_DATABASE_URL,
 * BENCH_STORE_ID. What the service does beyond this (auth, limits, validation, the claimable
 * quantity check, the claim's items, policy link, event and e-mail, the answer) is what the
 * comparison measures.
 */
import { createServer } from 'node:http';
import pg from 'pg';
import { newId } from '../../server/src/lib/ids';

const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 10 });
const storeId = process.env.BENCH_STORE_ID;

async function file(sourceOrderId: string, body: { email: string; claimCategory: string; salesChannel: string }) {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const order = await client.query<{ id: string }>(
      `select id from orders where store_id = $1 and source_order_id = $2 and deleted_at is null for no key update`,
      [storeId, sourceOrderId],
    );
    const orderId = order.rows[0]?.id;
    if (!orderId) throw new Error('no such order');
    const id = newId('clm');
    await client.query(
      `insert into claims (id, store_id, order_id, source_order_id, author_email, claim_category, sales_channel)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [id, storeId, orderId, sourceOrderId, body.email, body.claimCategory, body.salesChannel],
    );
    await client.query('commit');
    return id;
  } catch (err) {
    await client.query('rollback');
    throw err;
  } finally {
    client.release();
  }
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const sourceOrderId = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
    file(sourceOrderId, JSON.parse(Buffer.concat(chunks).toString()))
      .then((id) => {
        const json = JSON.stringify({ id });
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': json.length });
        res.end(json);
      })
      .catch(() => res.writeHead(500).end());
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));
