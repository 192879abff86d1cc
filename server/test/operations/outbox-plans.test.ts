import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchesWritten } from '../../src/db/committed-batches';
import { createDb, type Db, poolOf } from '../../src/db/database';
import { migrateToLatest } from '../../src/db/migrate';
import { transact } from '../../src/db/transact';
import { claimLinks, viewClaimUrl } from '../../src/domain/claims/links';
import { registerApp } from '../../src/domain/identity/apps';
import { runMail } from '../../src/domain/mail/deliver';
import { queueMailAfterCommit } from '../../src/domain/mail/outbox';
import { createMailer } from '../../src/domain/mail/send';
import { AttemptSlots } from '../../src/domain/webhooks/attempt-slots';
import { runDeliveries } from '../../src/domain/webhooks/deliveries';
import type { DeliveryKey } from '../../src/domain/webhooks/enqueue';
import { recordEvent } from '../../src/domain/webhooks/record';
import { newId } from '../../src/lib/ids';
import { createLogger } from '../../src/logger';
import { createOwner } from '../harness/fixtures';
import { type PrivatePostgres, startPrivatePostgres } from '../harness/private-postgres';
import { testConfig } from '../harness/server';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** Every node of `plan` that reads `table`, as "<node type> <index>". */
function readsOf(table: string, plan: PlanNode): string[] {
  const own =
    plan['Relation Name'] === table && plan['Node Type'] !== 'ModifyTable'
      ? [`${plan['Node Type']} ${plan['Index Name'] ?? ''}`.trim()]
      : plan['Node Type'] === 'Bitmap Index Scan' && plan['Index Name']?.startsWith(table)
        ? [`Bitmap Index Scan ${plan['Index Name']}`]
        : [];
  return [...own, ...(plan.Plans ?? []).flatMap((child) => readsOf(table, child))];
}

/**
 * The outboxes' statements that change rows by key (webhook deliveries: queueing, lease,
 * outcome, D32; e-mail: the same, D42) read each row through the primary key, also when the
 * table's statistics predate a burst of pending rows (as they do in production: a burst
 * outruns autovacuum's analyze, an SMTP outage leaves a backlog). With a status condition on
 * the changed table itself, PostgreSQL read a whole partial index of pending rows for every
 * statement instead (`db/locked-by-key.ts`). The plans are the ones PostgreSQL runs, reported
 * by auto_explain.
 */
describe('outbox statements under statistics older than a burst', () => {
  let postgres: PrivatePostgres;
  let db: Db;
  /** Plans run on `db`, by the statement's text. */
  const plans: { text: string; plan: PlanNode }[] = [];
  let storeId: string;
  // Retries a minute away: none comes due while a test runs.
  const config = testConfig({ webhookWorkers: 10, webhookRetrySchedule: [60], mailRetrySchedule: [60] });

  /** The plans of the statements whose text holds each of `markers` read `table` through its primary key alone. */
  const expectReadByKey = (table: string, markers: readonly string[]) => {
    for (const marker of markers) {
      const found = plans.filter((p) => p.text.includes(marker));
      expect(found.length, marker).toBeGreaterThan(0);
      const read = [...new Set(found.flatMap((p) => readsOf(table, p.plan)))];
      expect.soft(read, marker).toEqual([`Index Scan ${table}_pkey`]);
    }
  };

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    db = createDb(postgres.url, { max: 2 });
    poolOf(db)!.on('connect', (client) => {
      client.on('notice', (notice) => {
        const json = notice.message?.indexOf('{') ?? -1;
        if (!notice.message?.includes('plan:') || json < 0) return;
        const explained = JSON.parse(notice.message.slice(json)) as { 'Query Text': string; Plan: PlanNode };
        plans.push({ text: explained['Query Text'], plan: explained.Plan });
      });
      void client.query(
        `load 'auto_explain'; set auto_explain.log_min_duration = 0; set auto_explain.log_analyze = on;
         set auto_explain.log_timing = off; set auto_explain.log_format = json; set auto_explain.log_level = notice`,
      );
    });
    await migrateToLatest(db);
    await sql`alter table webhook_deliveries set (autovacuum_enabled = off)`.execute(db);
    const owner = await createOwner(db, 'plans');
    storeId = owner.store.id;
    const app = await registerApp(db, config.secretKey, owner.user.id, {
      name: 'Plans',
      redirectUris: ['https://plans.example.com/cb'],
      requestedScopes: ['order:read'],
      distribution: 'private',
      // Nothing listens there: each attempt fails at once and schedules a retry.
      webhookUrl: 'http://127.0.0.1:9/hook',
      webhookTopics: ['message/created'],
    });
    await db
      .insertInto('installations')
      .values({ id: newId('in'), storeId, clientId: app.clientId, scopes: ['order:read'] })
      .execute();
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
    await postgres?.stop();
  });

  const burst = async (events: number): Promise<DeliveryKey[]> => {
    const keys: DeliveryKey[] = [];
    await transact(db, async (trx) => {
      for (let i = 0; i < events; i++) {
        const body = {
          claimId: `cl_${i}`,
          storeId,
          messageId: `ms_${i}`,
          senderType: 'customer' as const,
          message: 'm',
        };
        const event = await recordEvent(trx, { storeId, topic: 'message/created', body });
        keys.push(...event.subscribers.map((clientId) => ({ eventId: event.id, clientId })));
      }
    });
    await batchesWritten(db);
    return keys;
  };

  it('reads each delivery by its key when queueing, leasing and recording', { timeout: 120_000 }, async () => {
    // Statistics taken when every delivery was decided: none pending, as far as the planner knows.
    await burst(1000);
    await sql`update webhook_deliveries set status = 'delivered', next_attempt_at = null`.execute(db);
    await sql`vacuum analyze webhook_deliveries`.execute(db);
    plans.length = 0;

    const keys = await burst(1500);
    await runDeliveries(db, config, new AttemptSlots(10), keys.slice(700, 710));

    expectReadByKey('webhook_deliveries', ['set queued_at = now()', 'lease_token = $', 'with outcome as']);
    // The attempts happened and were recorded: each delivery waits for its retry.
    const decided = await db
      .selectFrom('webhookDeliveries')
      .select(['attemptCount', 'status'])
      .where(
        'eventId',
        'in',
        keys.slice(700, 710).map((k) => k.eventId),
      )
      .execute();
    expect(decided).toEqual(Array.from({ length: 10 }, () => ({ attemptCount: 1, status: 'pending' })));
  });

  it('reads each e-mail by its key when queueing, leasing and recording (D42)', { timeout: 120_000 }, async () => {
    // A claim to write to, and statistics taken when 20,000 messages were sent and none pending.
    await sql`
      insert into orders (id, store_id, source_order_id, source_order_number, currency, source_created_at,
        platform_id, total)
      values ('or_plans', ${storeId}, 'plans-1', '#1', 'USD', now(), 'api', 10)
    `.execute(db);
    await sql`
      insert into claims (id, store_id, order_id, source_order_id, claim_category, sales_channel, author_email)
      values ('cl_plans', ${storeId}, 'or_plans', 'plans-1', 'SHIPPING', 'ONLINE', 'shopper@example.com')
    `.execute(db);
    await sql`alter table mail_messages set (autovacuum_enabled = off)`.execute(db);
    const messages = (status: string, count: number) => sql`
      insert into mail_messages (id, store_id, claim_id, kind, recipient, status, next_attempt_at)
      select 'ml_' || ${status} || '_' || n, ${storeId}, 'cl_plans', 'claim_filed', 'shopper@example.com',
        ${status}, case when ${status} = 'pending' then now() end
      from generate_series(1, ${count}::int) n
    `;
    await messages('sent', 20_000).execute(db);
    await sql`vacuum analyze mail_messages`.execute(db);
    await messages('pending', 3000).execute(db);
    plans.length = 0;

    await queueMailAfterCommit(db, ['ml_pending_1500', 'ml_pending_1501']);
    const mailer = createMailer(config);
    try {
      const links = claimLinks(config.secretKey, config.publicBaseUrl);
      await runMail(
        db,
        config,
        { claimUrlOf: (linkId) => viewClaimUrl(links, linkId), invitationUrlOf: () => '', publicBaseUrl: '' },
        mailer,
        createLogger('silent'),
        'ml_pending_1500',
      );
    } finally {
      mailer.close();
    }

    expectReadByKey('mail_messages', ['set queued_at = now()', 'lease_token = $', 'set status = $']);
    // Without an SMTP server the message is NOT_SENT (D42), decided by this attempt.
    const message = await db
      .selectFrom('mailMessages')
      .select(['status', 'queuedAt'])
      .where('id', 'in', ['ml_pending_1500', 'ml_pending_1501'])
      .orderBy('id')
      .execute();
    expect(message.map((m) => m.status)).toEqual(['not_sent', 'pending']);
    expect(message[1]!.queuedAt).not.toBeNull();
  });
});
