import { createHmac, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/job-runner';
import { CHROMIUM, expectAccessible, launchChromium, NO_CHROMIUM } from '../harness/browser';
import { type ClaimStore, claimStore } from '../harness/claims';
import { signedInPage } from '../harness/dashboard';
import { answered, bearer } from '../harness/fixtures';
import { type SmtpSink, startMailRunner, startSmtpSink } from '../harness/mail';
import { startTestServer, type TestServer } from '../harness/server';
import { type Receiver, startReceiver } from '../harness/webhooks';

const DAY = 86_400_000;

/**
 * D54 end to end, from a signed carrier webhook to the dashboard's "To do" tab, on a live store:
 * the owner registers an AfterShip source and sets the rules to file claims on the settings
 * page; the app puts a protected order and its fulfillment; AfterShip's delivery says the only
 * carrier scan was 8 days ago. The evaluation job (the delivering process's queue, as in
 * production) files one claim within a minute: it is in the queue with its evidence, the app got
 * `claim/created` and `tracking/alert`, the shopper the e-mail (D42); the same delivery again,
 * and its events in another order, file nothing more.
 */
if (!CHROMIUM) console.warn(`[pages] dashboard tracking end-to-end browser test skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('a signed tracking webhook files a claim the dashboard shows (D50, D54)', () => {
  let server: TestServer;
  let browser: Browser;
  let shop: ClaimStore;
  let sink: SmtpSink;
  let receiver: Receiver;
  let delivery: Delivery;

  beforeAll(async () => {
    server = await startTestServer();
    sink = await startSmtpSink();
    receiver = await startReceiver();
    // The delivering process: webhooks, e-mail, and the tracking evaluation job the ingest queues.
    ({ delivery } = await startMailRunner(server, { smtpUrl: sink.url, mailFrom: 'claims@shop.test' }));
    shop = await claimStore(server, 'tracking-e2e');
    await sql`
      update apps set webhook_url = ${`${receiver.url}/hook`}, webhook_topics = array['claim/created', 'tracking/alert']
      where client_id = ${shop.clientId}
    `.execute(server.db);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await delivery?.stop();
    await receiver?.close();
    await sink?.close();
    await server?.close();
  });

  /** AfterShip's payload: the package's whole history, checkpoints in the order given. */
  const aftership = (trackingNumber: string, checkpoints: object[]) =>
    Buffer.from(
      JSON.stringify({
        event: 'tracking_update',
        event_id: randomUUID(),
        msg: { tracking_number: trackingNumber, slug: 'usps', tag: 'InTransit', subtag: 'InTransit_002', checkpoints },
      }),
    );
  const post = (url: string, secret: string, raw: Buffer) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'aftership-hmac-sha256': createHmac('sha256', secret).update(raw).digest('base64'),
      },
      body: new Uint8Array(raw),
    });
  /** The package's decisions, newest first, as the app reads them. */
  const decisions = async () => {
    const params = { sourceOrderId: 'trk-e2e-1', sourceFulfillmentId: 'f-1' };
    const [pkg] = answered(await shop.api.tracking.get({ params }), 200);
    return pkg!.decisions;
  };
  const evaluationsQueued = async () =>
    Number(
      (
        await sql<{ n: string }>`
          select count(*) as n from graphile_worker.jobs where task_identifier = 'tracking.evaluate'
        `.execute(server.db)
      ).rows[0]!.n,
    );
  const claims = async () => answered(await shop.api.claims.list({ query: {} }), 200).edges.map((e) => e.node);

  it('files one claim, seen in "To do" with its evidence; the app and the shopper are told; repeats file nothing', async () => {
    expect(
      (await server.db.selectFrom('stores').select('livemode').where('id', '=', shop.owner.store.id).executeTakeFirst())
        ?.livemode,
    ).toBe(true);
    const owner = { email: shop.owner.user.email, password: shop.owner.password };
    const { context, page } = await signedInPage(browser, server, owner);
    const settings = `${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/settings`;
    await page.goto(settings);
    await page.getByLabel('Provider').selectOption('aftership');
    await page.getByRole('button', { name: 'Add source' }).click();
    const inboundUrl = await page.locator('#new-source-url').innerText();
    const secret = await page.locator('#new-source-secret').innerText();
    await page.getByLabel('File claims', { exact: true }).check();
    await page.getByRole('button', { name: 'Save tracking rules' }).click();
    await expect.poll(() => page.url()).toContain('notice=trackingSaved');

    // The app: a protected order, and its fulfillment with a tracking number, labelled 10 days ago.
    const email = 'lost-parcel@example.com';
    const trackingNumber = '9400111899223817260001';
    await shop.putOrder('trk-e2e-1', {
      sourceOrderNumber: '#7001',
      premiumPaid: 2.5,
      customerEmail: email,
      lineItems: [{ sourceItemId: 'mug', quantity: 2 }],
    });
    const now = Date.now();
    const fulfilled = await server.request('/v1/orders/trk-e2e-1/fulfillments/f-1', {
      method: 'PUT',
      headers: bearer(shop.token),
      json: {
        fulfillmentStatus: 'CONFIRMED',
        sourceItemIds: [{ sourceItemId: 'mug', quantity: 2 }],
        trackingNumber: [trackingNumber],
        updatedAt: new Date(now - 10 * DAY).toISOString(),
      },
    });
    expect(fulfilled.status).toBe(200);
    // The fulfillment's own evaluation, before any scan: waited for, so that a busy machine
    // cannot fold it into the scan's evaluation (one evaluation per package at a time, D54).
    await expect
      .poll(async () => [(await decisions()).map((d) => d.action), await evaluationsQueued()], {
        timeout: 60_000,
        interval: 250,
      })
      .toEqual([['skipped'], 0]);

    // AfterShip: label information 9 days ago, the only carrier scan 8 days ago (lost after 7, D54).
    const checkpoints = [
      { checkpoint_time: new Date(now - 9 * DAY).toISOString(), tag: 'InfoReceived', message: 'Label created' },
      {
        checkpoint_time: new Date(now - 8 * DAY).toISOString(),
        tag: 'InTransit',
        subtag: 'InTransit_002',
        message: 'Accepted at USPS Origin Facility',
        location: 'Denver, CO 80202',
      },
    ];
    const raw = aftership(trackingNumber, checkpoints);
    expect((await post(inboundUrl, secret, raw)).status).toBe(200);

    // The evaluation runs within a minute of the event (D54).
    await expect.poll(async () => (await claims()).length, { timeout: 60_000, interval: 250 }).toBe(1);
    const [claim] = await claims();
    expect(claim).toMatchObject({ claimType: 'LOST_IN_TRANSIT', claimState: 'NEW', authorEmail: email });

    await page.goto(`${server.baseUrl}/dashboard/stores/${shop.owner.store.id}/claims`);
    expect(await page.getByRole('link', { name: 'To do' }).getAttribute('aria-current')).toBe('page');
    const row = page.locator('tr', { hasText: claim!.id });
    expect(await row.innerText()).toContain('#7001');
    await row.getByRole('link', { name: claim!.id }).click();
    await expect.poll(() => page.url()).toContain(`/claims/${claim!.id}`);
    const description = page.locator('dt:has-text("Description") + dd');
    expect(await description.innerText()).toContain('no carrier scan for 8 days');
    expect(await description.innerText()).toContain(trackingNumber);
    await expectAccessible(browser, page, 'a claim filed from tracking');

    // The app's receiver: claim/created and tracking/alert; the shopper's e-mail (D42).
    await expect
      .poll(
        () =>
          receiver
            .at('/hook')
            .filter((r) => r.raw.includes(claim!.id))
            .map((r) => r.headers['x-webhook-topic'])
            .sort(),
        { timeout: 30_000, interval: 200 },
      )
      .toEqual(['claim/created', 'tracking/alert']);
    await expect.poll(() => sink.to(email).length, { timeout: 30_000, interval: 200 }).toBe(1);

    // The same delivery again, and the same events in another order: still one claim.
    expect((await post(inboundUrl, secret, raw)).status).toBe(200);
    expect((await post(inboundUrl, secret, aftership(trackingNumber, [...checkpoints].reverse()))).status).toBe(200);
    // Each delivery with events queues an evaluation: wait for them all to have run. The first
    // after the claim finds the same rule holding on a package that has its claim, and skips it
    // (the later ones, deciding the same, are not written again); the first decision of all is
    // the fulfillment's, before any scan.
    await expect
      .poll(async () => [(await decisions()).map((d) => d.action), await evaluationsQueued()], {
        timeout: 60_000,
        interval: 250,
      })
      .toEqual([['skipped', 'filed', 'skipped'], 0]);
    expect((await decisions())[0]).toMatchObject({ rule: 'lost', claimId: claim!.id });
    expect((await decisions())[0]!.reason).toBe(`the package already has its claim ${claim!.id}`);
    expect((await claims()).map((c) => c.id)).toEqual([claim!.id]);
    expect(sink.to(email)).toHaveLength(1);
    await context.close();
  }, 180_000);
});
