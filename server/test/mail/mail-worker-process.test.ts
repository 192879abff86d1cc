import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { answered } from '../harness/fixtures';
import { type SmtpSink, startSmtpSink } from '../harness/mail';
import { type ServiceProcess, startServiceProcess } from '../harness/processes';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D42 as an operator runs it: `pnpm worker` configured only by its environment (SMTP_URL,
 * MAIL_FROM, MAIL_RETRY_SCHEDULE) e-mails the store credit of a claim approved through the
 * API, and the claim record shows SENT within seconds. Its output names no address.
 */
describe('e-mail from a delivering process configured by SMTP_URL (D42)', () => {
  let server: TestServer;
  let sink: SmtpSink;
  let worker: ServiceProcess;
  let s: ClaimStore;

  beforeAll(async () => {
    server = await startTestServer();
    sink = await startSmtpSink();
    worker = await startServiceProcess({
      databaseUrl: server.databaseUrl,
      // The API's own key, as in production: the claim links (D41) in the mail are derived from it.
      secretKey: server.config.secretKey,
      entry: 'worker',
      env: {
        WEBHOOK_WORKERS: '2',
        // Credentials in the URL (D42): the worker signs in with them and never logs them.
        SMTP_URL: sink.url.replace('smtp://', 'smtp://mailer:s3cret-pass@'),
        MAIL_FROM: 'claims@shop.test',
        MAIL_RETRY_SCHEDULE: '1,1',
        PUBLIC_BASE_URL: server.baseUrl,
      },
    });
    s = await claimStore(server, 'mail-process');
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
    await sink?.close();
    await server?.close();
  });

  it('approving a STORE_CREDIT claim delivers the credit within seconds; the record shows SENT', async () => {
    await s.putOrder('o-process', { sourceOrderNumber: '#7001' });
    const claimId = await s.fileId('o-process', claimBody({ email: 'process-shopper@example.com' }));
    const approved = await s.post(`/v1/claims/${claimId}/approve`, {
      resolutions: [{ type: 'STORE_CREDIT', paidValue: 25 }],
    });
    expect(approved.status).toBe(200);
    const started = Date.now();
    const read = async () => answered(await s.api.claims.get({ params: { claimId } }), 200);
    await expect
      .poll(async () => (await read()).claimStoreCredits[0]!.emailStatus, { timeout: 15_000, interval: 100 })
      .toBe('SENT');
    expect(Date.now() - started).toBeLessThan(15_000);
    const claim = await read();
    const credit = sink
      .to('process-shopper@example.com')
      .find((a) => a.mail.subject?.startsWith('Your store credit'))?.mail;
    expect(credit?.text).toContain(claim.claimStoreCredits[0]!.code);
    expect(sink.to('process-shopper@example.com').map((a) => a.user)).toContain('mailer');
    expect(credit?.text).toContain(claim.viewClaimUrl);
    await expect.poll(() => sink.to('process-shopper@example.com').length).toBe(3);
    expect(worker.output()).toContain('"mail attempt"');
    expect(worker.output()).not.toContain('process-shopper@example.com');
    expect(worker.output()).not.toContain('s3cret-pass');
  });
});
