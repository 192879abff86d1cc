/**
 * The baseline of the inbound tracking webhook (D54): node:http verifying the AfterShip
 * signature (base64 HMAC-SHA256 of the raw body) and inserting the payload's package and its
 * events in one transaction with plain `pg` (a pool of 10, as the service's), answering 200.
 * Env: PORT, BENCH_DATABASE_URL, BENCH_STORE_ID, BENCH_TRACKING_SECRET. What the service does
 * beyond this (source lookup and decryption, parsing into the vocabulary, the state recompute,
 * binding to fulfillments, the envelope) is what the comparison measures.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import pg from 'pg';
import { newId } from '../../server/src/lib/ids';

const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL, max: 10 });
const storeId = process.env.BENCH_STORE_ID;
const secret = process.env.BENCH_TRACKING_SECRET ?? '';

interface Checkpoint {
  checkpoint_time: string;
  tag: string;
  message: string;
}

async function insert(number: string, eventId: string, checkpoints: Checkpoint[]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const id = newId('pkg');
    await client.query(
      `insert into tracking_packages (id, store_id, livemode, tracking_number, unbound_until)
       values ($1, $2, true, $3, now() + interval '14 days')`,
      [id, storeId, number],
    );
    for (const [i, c] of checkpoints.entries()) {
      await client.query(
        `insert into tracking_events (package_id, event_key, occurred_at, status, raw_status, description, is_carrier_scan)
         values ($1, $2, $3, 'in_transit', $4, $5, true) on conflict (package_id, event_key) do nothing`,
        [id, `${eventId}:${i}`, c.checkpoint_time, c.tag, c.message],
      );
    }
    await client.query('commit');
  } catch (e) {
    await client.query('rollback');
    throw e;
  } finally {
    client.release();
  }
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const presented = Buffer.from(String(req.headers['aftership-hmac-sha256'] ?? ''), 'base64');
    const expected = createHmac('sha256', secret).update(raw).digest();
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
      res.writeHead(401).end();
      return;
    }
    const p = JSON.parse(raw.toString()) as {
      event_id: string;
      msg: { tracking_number: string; checkpoints: Checkpoint[] };
    };
    insert(p.msg.tracking_number, p.event_id, p.msg.checkpoints)
      .then(() => {
        const json = '{"data":{"received":true}}';
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': json.length });
        res.end(json);
      })
      .catch(() => res.writeHead(500).end());
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => process.exit(0));
