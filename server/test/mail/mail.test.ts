import { sql } from 'kysely';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/job-runner';
import { registerQueueMetrics } from '../../src/metrics';
import { CLAIM_TEST_SCOPES, type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { answered } from '../harness/fixtures';
import { type CapturedLogs, mailOf, type SmtpSink, startMailRunner, startSmtpSink } from '../harness/mail';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * E-mail to shoppers over a real SMTP server (D42): claims filed, approved and denied through
 * the HTTP API, sent by the queue runner from the outbox after commit, received by an
 * smtp-server on loopback and parsed with mailparser.
 */
describe('e-mail to shoppers over SMTP (D42)', () => {
  let server: TestServer;
  let sink: SmtpSink;
  let delivery: Delivery;
  let logs: CapturedLogs;
  let s: ClaimStore;
  const recipients: string[] = [];
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer();
    sink = await startSmtpSink();
    ({ delivery, logs } = await startMailRunner(server, { smtpUrl: sink.url, mailFrom: 'claims@shop.test' }));
    s = await claimStore(server, 'mail', [...CLAIM_TEST_SCOPES, 'partner-context:update', 'store:read']);
  });
  afterAll(async () => {
    await delivery?.stop();
    await sink?.close();
    await server?.close();
  });

  /** A new order and a claim on it by a new shopper; answers the claim id and the shopper's address. */
  async function filed(orderNumber = `#${1000 + ++n}`) {
    const email = `shopper-${++n}@example.com`;
    recipients.push(email);
    const sourceOrderId = `o-mail-${n}`;
    await s.putOrder(sourceOrderId, { sourceOrderNumber: orderNumber });
    const claimId = await s.fileId(sourceOrderId, claimBody({ email }));
    return { claimId, email, orderNumber };
  }

  const record = async (claimId: string) => answered(await s.api.claims.get({ params: { claimId } }), 200);
  const arrivals = (email: string, count: number) =>
    expect.poll(() => sink.to(email).length, { timeout: 15_000, interval: 100 }).toBe(count);
  const subjects = (email: string) => sink.to(email).map((a) => a.mail.subject);

  it('a filed claim: the claimant gets a confirmation with the claim link, and the message ends sent', async () => {
    const { claimId, email, orderNumber } = await filed();
    await arrivals(email, 1);
    const { mail, envelopeFrom, envelopeTo } = sink.to(email)[0]!;
    const claim = await record(claimId);
    expect(envelopeTo).toEqual([email]);
    expect(envelopeFrom).toBe('claims@shop.test');
    expect(mail.from?.value).toEqual([{ name: s.owner.store.name, address: 'claims@shop.test' }]);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value : []).toEqual([{ name: '', address: email }]);
    expect(mail.subject).toBe(`We received your claim for order ${orderNumber}`);
    // A plain-text and an HTML part, both with the link the claim record gives (D41).
    expect(mail.text).toContain(claim.viewClaimUrl);
    expect(mail.html).toContain(`href="${claim.viewClaimUrl}"`);
    expect(mail.html).not.toMatch(/<img|src=|<script|url\(/i);
    await expect.poll(async () => (await mailOf(server, claimId)).map((m) => m.status)).toEqual(['sent']);
    const [row] = await mailOf(server, claimId);
    expect(row).toMatchObject({ kind: 'claim_filed', attemptCount: 1, error: null });
    expect(row!.sentAt).toBeInstanceOf(Date);
  });

  it('approving a STORE_CREDIT claim: the notice and the credit arrive, and the record shows SENT within seconds', async () => {
    const { claimId, email, orderNumber } = await filed();
    const approved = await s.api.claims.approve({
      params: { claimId },
      body: { resolutions: [{ type: 'STORE_CREDIT', paidValue: 40 }] },
    });
    const credit = answered(approved, 200).claimStoreCredits[0]!;
    // D42: PENDING until the SMTP server accepts the message.
    expect(credit).toMatchObject({ emailStatus: 'PENDING', emailTime: null });
    const started = Date.now();
    await expect
      .poll(async () => (await record(claimId)).claimStoreCredits[0]!.emailStatus, { timeout: 10_000, interval: 100 })
      .toBe('SENT');
    expect(Date.now() - started).toBeLessThan(10_000);
    const sent = (await record(claimId)).claimStoreCredits[0]!;
    expect(Date.parse(sent.emailTime!)).toBeGreaterThanOrEqual(Date.parse(credit.createdAt));

    await arrivals(email, 3);
    expect(subjects(email).sort()).toEqual(
      [
        `We received your claim for order ${orderNumber}`,
        `Your claim for order ${orderNumber} was approved`,
        `Your store credit from ${s.owner.store.name}: ${sent.totalValue.toFixed(2)} USD`,
      ].sort(),
    );
    const creditMail = sink.to(email).find((a) => a.mail.subject?.startsWith('Your store credit'))!.mail;
    // D26: the code, value, bonus and currency, in both parts.
    for (const part of [creditMail.text!, creditMail.html as string]) {
      expect(part).toContain(sent.code);
      expect(part).toContain(`${sent.creditValue.toFixed(2)} USD`);
      expect(part).toContain(`${sent.bonusValue.toFixed(2)} USD`);
      expect(part).toContain((await record(claimId)).viewClaimUrl);
    }
    expect((await mailOf(server, claimId)).map((m) => [m.kind, m.status]).sort()).toEqual([
      ['claim_approved', 'sent'],
      ['claim_filed', 'sent'],
      ['store_credit', 'sent'],
    ]);
  });

  it('a denial: the claimant is told, with the reason in plain words', async () => {
    const { claimId, email, orderNumber } = await filed();
    expect((await s.post(`/v1/claims/${claimId}/deny`, { reason: 'PACKAGE_ARRIVED' })).status).toBe(200);
    await arrivals(email, 2);
    const denial = sink.to(email).find((a) => a.mail.subject === `Your claim for order ${orderNumber} was declined`);
    expect(denial?.mail.text).toContain('because the package arrived');
    expect(denial?.mail.text).toContain((await record(claimId)).viewClaimUrl);
  });

  it("the merchant's sendConfirmationEmail false suppresses the claim messages, never the store credit", async () => {
    const settings = (value: boolean) =>
      server.db
        .updateTable('merchantSettings')
        .set({ sendConfirmationEmail: value })
        .where('storeId', '=', s.owner.store.id)
        .execute();
    await settings(false);
    try {
      const { claimId, email } = await filed();
      await s.post(`/v1/claims/${claimId}/approve`, { resolutions: [{ type: 'STORE_CREDIT', paidValue: 10 }] });
      await expect.poll(async () => (await record(claimId)).claimStoreCredits[0]!.emailStatus).toBe('SENT');
      await arrivals(email, 1);
      expect(subjects(email)[0]).toMatch(/^Your store credit from /);
      expect((await mailOf(server, claimId)).map((m) => m.kind)).toEqual(['store_credit']);
    } finally {
      await settings(true);
    }
  });

  it("a partner context's sendConfirmationEmail false (D37) does the same for its app", async () => {
    const created = await s.api.settings.createContext({ body: { name: 'quiet' } });
    const contextId = answered(created, 201).data.id;
    const patch = (value: boolean) =>
      s.api.settings.updateContext({ params: { contextId }, body: { sendConfirmationEmail: value } });
    expect((await patch(false)).status).toBe(200);
    try {
      const { claimId, email } = await filed();
      await s.post(`/v1/claims/${claimId}/deny`, { reason: 'NOT_COVERED' });
      const second = await filed();
      await s.post(`/v1/claims/${second.claimId}/approve`, { resolutions: [{ type: 'STORE_CREDIT', paidValue: 10 }] });
      await expect.poll(async () => (await record(second.claimId)).claimStoreCredits[0]!.emailStatus).toBe('SENT');
      await arrivals(second.email, 1);
      expect(subjects(second.email)[0]).toMatch(/^Your store credit from /);
      expect(await mailOf(server, claimId)).toEqual([]);
      expect(sink.to(email)).toEqual([]);
    } finally {
      expect((await patch(true)).status).toBe(200);
    }
  });

  it('escapes hostile store names and order numbers in the HTML part; the text part says them as they are', async () => {
    const hostile = `Evil <script>alert(1)</script> & "Co" <img src=https://tracker.example/x.png>`;
    const original = s.owner.store.name;
    await server.db.updateTable('stores').set({ name: hostile }).where('id', '=', s.owner.store.id).execute();
    try {
      const orderNumber = `<a href="https://evil.example">#1</a>'`;
      const { email } = await filed(orderNumber);
      await arrivals(email, 1);
      const { mail } = sink.to(email)[0]!;
      const html = mail.html as string;
      expect(html).not.toContain('<script');
      expect(html).not.toContain('<img');
      expect(html).not.toContain('https://evil.example">');
      expect(html).toContain('Evil &#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;Co&#34;');
      expect(html).toContain('&#60;a href=&#34;https://evil.example&#34;&#62;#1&#60;/a&#62;&#39;');
      expect(html.match(/<a /g)).toHaveLength(1);
      expect(mail.text).toContain(`${hostile} has received your claim for order ${orderNumber}.`);
      expect(mail.from?.value[0]).toEqual({ name: hostile, address: 'claims@shop.test' });
    } finally {
      await server.db.updateTable('stores').set({ name: original }).where('id', '=', s.owner.store.id).execute();
    }
  });

  it('reports the outbox in the metrics: queue depth and outcomes', async () => {
    const registry = new Registry();
    registerQueueMetrics(registry, server.db);
    const sent = (text: string) => Number(/^mail_messages\{status="sent"\} (\d+)$/m.exec(text)?.[1]);
    // The last message's outcome is written just after the SMTP server took it: waited for.
    await expect.poll(async () => sent(await registry.metrics())).toBe(sink.arrived.length);
    const text = await registry.metrics();
    expect(text).toMatch(/^mail_queue_depth \d+$/m);
    expect(text).toMatch(/^mail_oldest_pending_age_seconds [\d.]+$/m);
    expect(text).toMatch(/^mail_messages\{status="failed"\} 0$/m);
  });

  it('reads the outbox for its figures within a bound: past it, the depth capped and the outcomes estimated', async () => {
    expect(sink.arrived.length).toBeGreaterThan(2);
    await sql`analyze mail_messages`.execute(server.db);
    // A change after the statistics: counted, it shows; estimated (past the bound), not yet.
    const one = await server.db
      .selectFrom('mailMessages')
      .select('id')
      .where('status', '=', 'sent')
      .executeTakeFirstOrThrow();
    await server.db.updateTable('mailMessages').set({ status: 'failed' }).where('id', '=', one.id).execute();
    try {
      const figures = async (cap?: number) => {
        const registry = new Registry();
        registerQueueMetrics(registry, server.db, cap);
        return registry.metrics();
      };
      const failed = (text: string) => Number(/^mail_messages\{status="failed"\} (\d+)$/m.exec(text)?.[1]);
      const bounded = await figures(2);
      expect(Number(/^mail_queue_depth (\d+)$/m.exec(bounded)?.[1])).toBeLessThanOrEqual(2);
      expect(failed(bounded)).toBe(0);
      expect(Number(/^mail_messages\{status="sent"\} (\d+)$/m.exec(bounded)?.[1])).toBe(sink.arrived.length);
      expect(failed(await figures())).toBe(1);
    } finally {
      await server.db.updateTable('mailMessages').set({ status: 'sent' }).where('id', '=', one.id).execute();
    }
  });

  it('logs no address and no message text (D42)', () => {
    const text = logs.text();
    expect(logs.lines.filter((l) => l.includes('"mail attempt"')).length).toBe(sink.arrived.length);
    for (const email of recipients) expect(text).not.toContain(email);
    for (const { mail } of sink.arrived) expect(text).not.toContain(mail.subject);
    expect(text).not.toMatch(/SC-[A-Z2-7]{16}/);
  });
});
