import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { answered } from '../harness/fixtures';
import { mailOf, startMailRunner } from '../harness/mail';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * Without SMTP_URL (D42): no e-mail leaves, and a store credit's emailStatus ends NOT_SENT.
 * In development (the embedded database: no DATABASE_URL) each message is written as a
 * `.eml` file under DATA_DIR/mail/ instead.
 */
describe('e-mail without an SMTP server (D42)', () => {
  let server: TestServer;
  let s: ClaimStore;
  let dataDir: string;

  beforeAll(async () => {
    server = await startTestServer();
    s = await claimStore(server, 'mail-none');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'mail-dev-'));
  });
  afterAll(async () => {
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const record = async (claimId: string) => answered(await s.api.claims.get({ params: { claimId } }), 200);

  async function approvedCredit(sourceOrderId: string, email: string) {
    await s.putOrder(sourceOrderId, { sourceOrderNumber: `#${sourceOrderId}` });
    const claimId = await s.fileId(sourceOrderId, claimBody({ email }));
    const res = await s.post(`/v1/claims/${claimId}/approve`, {
      resolutions: [{ type: 'STORE_CREDIT', paidValue: 5 }],
    });
    expect(res.status).toBe(200);
    return claimId;
  }

  it('a change queues its messages as jobs right after its commit, one job each', async () => {
    // No runner is started yet: the jobs wait in the queue, and the messages stay pending.
    await s.putOrder('o-queued');
    const claimId = await s.fileId('o-queued', claimBody({ email: 'queued@example.com' }));
    // Queued once the filing committed, beside its answer: wait for the mark.
    await expect.poll(async () => (await mailOf(server, claimId))[0]?.queuedAt).toBeInstanceOf(Date);
    const [row] = await mailOf(server, claimId);
    expect(row).toMatchObject({ kind: 'claim_filed', status: 'pending', recipient: 'queued@example.com' });
    const jobs = await sql<{ payload: { id: string } }>`
      select j.payload from graphile_worker._private_jobs j
      join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = 'mail_send'
    `.execute(server.db);
    expect(jobs.rows.map((j) => j.payload)).toEqual([{ id: row!.id }]);
  });

  it('the configuration: development writes files under DATA_DIR/mail/, production nothing', () => {
    const key = 'a'.repeat(43);
    expect(loadConfig({ SECRET_KEY: key, DATA_DIR: dataDir }).mailDir).toBe(path.join(dataDir, 'mail'));
    expect(loadConfig({ SECRET_KEY: key, DATABASE_URL: 'postgres://db/x' }).mailDir).toBeUndefined();
    const smtp = { SECRET_KEY: key, SMTP_URL: 'smtp://relay:25', MAIL_FROM: 'a@example.com' };
    expect(loadConfig({ ...smtp, DATA_DIR: dataDir }).mailDir).toBeUndefined();
  });

  it('in development: each message is a .eml file, and the store credit is NOT_SENT', async () => {
    const mailDir = path.join(dataDir, 'mail');
    const { delivery } = await startMailRunner(server, { smtpUrl: undefined, mailDir });
    try {
      const claimId = await approvedCredit('o-dev', 'dev-shopper@example.com');
      await expect.poll(async () => (await record(claimId)).claimStoreCredits[0]!.emailStatus).toBe('NOT_SENT');
      await expect
        .poll(async () => (await mailOf(server, claimId)).map((m) => m.status))
        .toEqual(['not_sent', 'not_sent', 'not_sent']);
      expect((await record(claimId)).claimStoreCredits[0]!.emailTime).toBeNull();
      const rows = await mailOf(server, claimId);
      expect(await readdir(mailDir)).toEqual(expect.arrayContaining(rows.map((m) => `${m.id}.eml`)));
      const credit = rows.find((m) => m.kind === 'store_credit')!;
      const parsed = await simpleParser(await readFile(path.join(mailDir, `${credit.id}.eml`)));
      expect(parsed.subject).toMatch(/^Your store credit from /);
      expect(parsed.text).toContain(credit.storeCreditCode!);
      expect(parsed.html).toContain(credit.storeCreditCode!);
    } finally {
      await delivery.stop();
    }
  });

  it('without a development folder: nothing is written, and the store credit is NOT_SENT', async () => {
    const { delivery } = await startMailRunner(server, { smtpUrl: undefined, mailDir: undefined });
    try {
      const before = (await readdir(path.join(dataDir, 'mail'))).length;
      const claimId = await approvedCredit('o-prod', 'prod-shopper@example.com');
      await expect.poll(async () => (await record(claimId)).claimStoreCredits[0]!.emailStatus).toBe('NOT_SENT');
      await expect.poll(async () => (await mailOf(server, claimId)).every((m) => m.status === 'not_sent')).toBe(true);
      expect((await readdir(path.join(dataDir, 'mail'))).length).toBe(before);
    } finally {
      await delivery.stop();
    }
  });
});
