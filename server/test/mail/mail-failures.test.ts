import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeClaimMail } from '../../src/domain/mail/outbox';
import type { Delivery } from '../../src/job-runner';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { answered } from '../harness/fixtures';
import { type CapturedLogs, mailOf, type SmtpSink, startMailRunner, startSmtpSink } from '../harness/mail';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * E-mail to shoppers when things go wrong (D42): an SMTP server that is down, one that
 * refuses, an address the mail library refuses, and a process that dies between the commit
 * of a change and the queuing of its messages. Retries on a short MAIL_RETRY_SCHEDULE (2 s,
 * 2 s: three attempts).
 */
describe('e-mail to shoppers: failures and retries (D42)', () => {
  let server: TestServer;
  let sink: SmtpSink;
  let delivery: Delivery;
  let logs: CapturedLogs;
  let s: ClaimStore;
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer();
    sink = await startSmtpSink();
    ({ delivery, logs } = await startMailRunner(server, { smtpUrl: sink.url, mailRetrySchedule: [2, 2] }));
    s = await claimStore(server, 'mail-failures');
  });
  afterAll(async () => {
    await delivery?.stop();
    await sink?.close();
    await server?.close();
  });

  async function filed() {
    const email = `shopper-${++n}@example.com`;
    await s.putOrder(`o-fail-${n}`);
    const claimId = await s.fileId(`o-fail-${n}`, claimBody({ email }));
    return { claimId, email };
  }
  const record = async (claimId: string) => answered(await s.api.claims.get({ params: { claimId } }), 200);
  const creditStatus = async (claimId: string) => (await record(claimId)).claimStoreCredits[0]!.emailStatus;
  const approveCredit = async (claimId: string) =>
    expect(
      (await s.post(`/v1/claims/${claimId}/approve`, { resolutions: [{ type: 'STORE_CREDIT', paidValue: 15 }] }))
        .status,
    ).toBe(200);
  const creditRow = async (claimId: string) => (await mailOf(server, claimId)).find((m) => m.kind === 'store_credit')!;

  it('a server that is down, then back: the store credit arrives after a retry', async () => {
    const { claimId, email } = await filed();
    await expect.poll(() => sink.to(email).length, { timeout: 10_000 }).toBe(1);
    await sink.stop();
    try {
      await approveCredit(claimId);
      // The first attempt finds the port closed; the message waits for its retry, still PENDING.
      await expect
        .poll(async () => (await creditRow(claimId)).attemptCount, { timeout: 10_000, interval: 50 })
        .toBeGreaterThanOrEqual(1);
      const waiting = await creditRow(claimId);
      expect(waiting.status).toBe('pending');
      expect(waiting.error).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
      expect(await creditStatus(claimId)).toBe('PENDING');
    } finally {
      await sink.start();
    }
    await expect.poll(() => creditStatus(claimId), { timeout: 15_000, interval: 100 }).toBe('SENT');
    const sent = await creditRow(claimId);
    expect(sent.status).toBe('sent');
    expect(sent.attemptCount).toBeGreaterThanOrEqual(2);
    expect(sink.to(email).filter((a) => a.mail.subject?.startsWith('Your store credit'))).toHaveLength(1);
  });

  it('a server that refuses: FAILED once the schedule is spent, and the record says so', async () => {
    const { claimId, email } = await filed();
    await expect.poll(() => sink.to(email).length, { timeout: 10_000 }).toBe(1);
    sink.mode = 'refuse';
    try {
      await approveCredit(claimId);
      await expect.poll(() => creditStatus(claimId), { timeout: 20_000, interval: 200 }).toBe('FAILED');
    } finally {
      sink.mode = 'accept';
    }
    const failed = await creditRow(claimId);
    // Three attempts: the first and one after each step of the schedule.
    expect(failed).toMatchObject({ status: 'failed', attemptCount: 3, sentAt: null, nextAttemptAt: null });
    expect(failed.error).toMatch(/550/);
    expect(failed.error).not.toContain(email);
    expect((await record(claimId)).claimStoreCredits[0]!.emailTime).toBeNull();
    expect(sink.to(email)).toHaveLength(1);
  });

  it('an address the mail library refuses: FAILED at once, never retried', async () => {
    const { claimId, email } = await filed();
    await expect.poll(() => sink.to(email).length, { timeout: 10_000 }).toBe(1);
    // An address stored before it was checked (the API refuses it now): no SMTP server could take it.
    const bad = 'shopper at example.com, other@example.com';
    await server.db.updateTable('claims').set({ authorEmail: bad }).where('id', '=', claimId).execute();
    await approveCredit(claimId);
    await expect.poll(() => creditStatus(claimId), { timeout: 10_000, interval: 100 }).toBe('FAILED');
    const failed = await creditRow(claimId);
    expect(failed).toMatchObject({ status: 'failed', attemptCount: 1 });
    expect(failed.error).toContain('refuses the address');
    expect(sink.arrived.filter((a) => a.envelopeTo.some((to) => to.includes('other@example.com')))).toEqual([]);
    expect(logs.text()).not.toContain('other@example.com');
  });

  it('a process that dies between the commit and the queuing: the sweep still sends the message', async () => {
    const { claimId, email } = await filed();
    await expect.poll(() => sink.to(email).length, { timeout: 10_000 }).toBe(1);
    // What a process killed right after its commit leaves behind: the message, written in the
    // change's transaction, and no job for it.
    // Its job-less state is read before the commit: once committed, the sweep may queue it at once.
    const [id, queuedAt] = await server.db.transaction().execute(async (trx) => {
      const [written] = await writeClaimMail(trx, {
        storeId: s.owner.store.id,
        clientId: s.clientId,
        claimId,
        notice: 'claim_denied',
      });
      const row = await trx
        .selectFrom('mailMessages')
        .select('queuedAt')
        .where('id', '=', written!)
        .executeTakeFirstOrThrow();
      return [written, row.queuedAt] as const;
    });
    expect(id).toBeDefined();
    expect(queuedAt).toBeNull();
    await expect.poll(() => sink.to(email).length, { timeout: 10_000, interval: 100 }).toBe(2);
    // The message arrives before the sender records it sent: wait for the record.
    await expect
      .poll(async () => (await mailOf(server, claimId)).find((m) => m.id === id), { timeout: 10_000, interval: 100 })
      .toMatchObject({ status: 'sent', attemptCount: 1 });
    expect(logs.text()).toContain('mail queued by the sweep');
  });

  it('logs attempts without an address', () => {
    const text = logs.text();
    expect(text).toContain('mail attempt failed');
    expect(text).not.toMatch(/shopper-\d+@example\.com/);
  });
});
