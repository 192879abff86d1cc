import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/free-port';
import { claimBody, orderBody } from '../harness/claims';
import { pageSession } from '../harness/dashboard';
import { installedAppWithToken } from '../harness/fixtures';
import type { ServiceProcess } from '../harness/processes';
import { sample, scrape } from '../harness/prometheus';
import { cloneDatabase, type TestServer } from '../harness/server';
import { answer, type Receiver, startDeliveryProcess, startReceiver } from '../harness/webhooks';

/** One span as an OTLP/HTTP JSON export carries it, its attributes flattened. */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  service: string;
}

/** OTLP JSON ids are hex; a base64 one (protobuf's JSON mapping) is turned to hex. */
const hex = (id: unknown) =>
  typeof id !== 'string' || id === '' || /^[0-9a-f]+$/.test(id)
    ? String(id ?? '')
    : Buffer.from(id, 'base64').toString('hex');

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
const plain = (v: AnyValue) =>
  v.stringValue ?? (v.intValue === undefined ? (v.boolValue ?? v.doubleValue) : Number(v.intValue));
const attributesOf = (list: { key: string; value: AnyValue }[] = []) =>
  Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));

/**
 * A real OTLP/HTTP receiver in the test: a node:http server that takes the service's trace
 * exports (`POST /v1/traces`, JSON) and keeps every span they carry.
 */
async function startOtlpReceiver(): Promise<{ url: string; spans: ExportedSpan[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attributesOf(rs.resource?.attributes)['service.name']);
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: hex(s.traceId),
                spanId: hex(s.spanId),
                parentSpanId: hex(s.parentSpanId),
                name: s.name,
                kind: s.kind,
                attributes: attributesOf(s.attributes),
                links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({
                  traceId: hex(l.traceId),
                  spanId: hex(l.spanId),
                })),
                service,
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `found` every 100 ms until it answers something, for at most `ms`. */
async function waitFor<T>(found: () => T | undefined, ms: number, what: string): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = found();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const SPAN_KIND = { SERVER: 2, CLIENT: 3, CONSUMER: 5 };

/**
 * OpenTelemetry end to end: the service as `pnpm start` runs it (API and delivery in one
 * process) with OTEL_EXPORTER_OTLP_ENDPOINT naming a receiver of the test's own. A request that
 * arrives with a W3C traceparent and records a webhook event is answered with a traceresponse
 * of the same trace, and one trace holds the request's span, its statements and the delivery
 * of its webhook (whose POST carries the trace on), with the job that ran it linked.
 */
describe('traces exported by OTLP', () => {
  let database: Awaited<ReturnType<typeof cloneDatabase>>;
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let hooks: Receiver;
  let service: ServiceProcess;
  let baseUrl: string;
  let metricsUrl: string;
  const secret = randomBytes(32);

  beforeAll(async () => {
    database = await cloneDatabase();
    otlp = await startOtlpReceiver();
    hooks = await startReceiver();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    service = await startDeliveryProcess({
      entry: 'main',
      port,
      databaseUrl: database.url,
      secretKey: secret,
      env: {
        PUBLIC_BASE_URL: baseUrl,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        METRICS_PORT: String(metricsPort),
      },
    });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await hooks?.close();
    await otlp?.close();
    await database?.drop();
  });

  it('follow one request through its statements to the webhook it caused, in one trace', async () => {
    const shopperEmail = 'traced.shopper@example.com';
    const installed = await installedAppWithToken(database.db, secret, baseUrl, 'traced', ['order:update'], {
      webhookUrl: `${hooks.url}/hooks`,
      webhookTopics: ['protection/added'],
    });
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const res = await fetch(`${baseUrl}/v1/orders/o-traced`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${installed.token}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
      body: JSON.stringify(orderBody({ premiumPaid: 2.5, customerEmail: shopperEmail })),
    });
    expect(res.status).toBe(200);
    // W3C Trace Context level 2: the answer names the server's span in the caller's trace.
    const answered = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(res.headers.get('traceresponse') ?? '');
    expect(answered?.[1]).toBe(traceId);
    const requestSpanId = answered![2]!;

    const webhook = await waitFor(() => hooks.at('/hooks')[0], 30_000, 'the webhook');
    expect(webhook.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));

    const ofTrace = () => otlp.spans.filter((s) => s.traceId === traceId);
    const delivery = await waitFor(
      () => ofTrace().find((s) => s.name === 'webhook protection/added'),
      30_000,
      'the delivery span',
    );
    const request = await waitFor(() => ofTrace().find((s) => s.spanId === requestSpanId), 10_000, 'the request span');
    expect(request).toMatchObject({
      name: 'PUT /v1/orders/:sourceOrderId',
      kind: SPAN_KIND.SERVER,
      parentSpanId: callerSpanId,
      service: 'protection-service',
    });
    expect(request.attributes).toMatchObject({
      'http.response.status_code': 200,
      'app.client_id': installed.app.clientId,
      'app.store_id': installed.store.id,
    });
    // The request's statements are its children, with their text and never their values.
    const statements = ofTrace().filter((s) => s.parentSpanId === requestSpanId && s.name.startsWith('pg '));
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.some((s) => String(s.attributes['db.query.text']).includes('insert into orders'))).toBe(true);
    // The delivery is a child of the request; its job, a trace of its own, is linked to it.
    expect(delivery).toMatchObject({ parentSpanId: requestSpanId, kind: SPAN_KIND.CLIENT });
    expect(delivery.attributes).toMatchObject({ 'webhook.outcome': 'delivered', 'http.response.status_code': 200 });
    expect(webhook.headers.traceparent).toContain(delivery.spanId);
    const job = delivery.links[0];
    expect(job).toBeDefined();
    const jobSpan = await waitFor(() => otlp.spans.find((s) => s.spanId === job!.spanId), 10_000, 'the job span');
    expect(jobSpan).toMatchObject({ name: 'job webhook_deliver', kind: SPAN_KIND.CONSUMER });

    const exported = JSON.stringify(otlp.spans);
    expect(exported).not.toContain(shopperEmail);
    expect(exported).not.toContain(installed.token);
  }, 90_000);

  it('give a batched queue write a trace of its own, linked to every request whose jobs it queued', async () => {
    const installed = await installedAppWithToken(database.db, secret, baseUrl, 'traced-batch', ['order:update'], {
      webhookUrl: `${hooks.url}/batched`,
      webhookTopics: ['protection/added'],
    });
    // Changes at once, so that their deliveries' jobs are queued by shared writes.
    const traces = Array.from({ length: 6 }, () => randomBytes(16).toString('hex'));
    const answers = await Promise.all(
      traces.map((traceId, i) =>
        fetch(`${baseUrl}/v1/orders/o-batched-${i}`, {
          method: 'PUT',
          headers: {
            authorization: `Bearer ${installed.token}`,
            'content-type': 'application/json',
            traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
          },
          body: JSON.stringify(orderBody({ premiumPaid: 1 })),
        }),
      ),
    );
    const requestSpans = answers.map((res) => {
      expect(res.status).toBe(200);
      return /^00-[0-9a-f]{32}-([0-9a-f]{16})-01$/.exec(res.headers.get('traceresponse') ?? '')![1]!;
    });
    await waitFor(() => (hooks.at('/batched').length >= traces.length ? true : undefined), 30_000, 'the webhooks');
    const batches = () => otlp.spans.filter((s) => s.name === 'batch queueDue');
    // Every request is linked from the write that queued its delivery's job...
    for (const spanId of requestSpans) {
      await waitFor(
        () => batches().find((b) => b.links.some((l) => l.spanId === spanId)),
        10_000,
        `the batch write linked to request span ${spanId}`,
      );
    }
    for (const batch of batches().filter((b) => b.links.some((l) => requestSpans.includes(l.spanId)))) {
      // ...which is the root of a trace of its own, holding its statements, in no request's trace.
      expect(batch.parentSpanId).toBe('');
      expect(traces).not.toContain(batch.traceId);
      expect(otlp.spans.some((s) => s.parentSpanId === batch.spanId && s.name.startsWith('pg '))).toBe(true);
    }
    const queueing = (s: ExportedSpan) => String(s.attributes['db.query.text']).includes('set queued_at = now()');
    expect(otlp.spans.filter((s) => traces.includes(s.traceId) && queueing(s))).toEqual([]);
  }, 60_000);

  it("follow a request to the e-mail it caused: the message keeps the request's trace, its attempt is a span of it", async () => {
    const shopperEmail = 'traced.mail@example.com';
    const installed = await installedAppWithToken(database.db, secret, baseUrl, 'traced-mail', [
      'order:update',
      'claim:manage',
    ]);
    const call = (path: string, json: unknown, headers: Record<string, string> = {}) =>
      fetch(baseUrl + path, {
        method: path.startsWith('/v1/claims') ? 'POST' : 'PUT',
        headers: { authorization: `Bearer ${installed.token}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(json),
      });
    expect((await call('/v1/orders/o-mail', orderBody({ premiumPaid: 1 }))).status).toBe(200);
    const traceId = randomBytes(16).toString('hex');
    const filed = await call('/v1/claims/o-mail', claimBody({ email: shopperEmail }), {
      traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
    });
    expect(filed.status).toBe(200);
    const requestSpanId = /^00-[0-9a-f]{32}-([0-9a-f]{16})-01$/.exec(filed.headers.get('traceresponse') ?? '')![1]!;
    // The outbox row carries the trace (the claim's notice: sendConfirmationEmail is on by default).
    const message = await database.db
      .selectFrom('mailMessages')
      .select(['id', 'traceparent'])
      .where('storeId', '=', installed.store.id)
      .where('kind', '=', 'claim_filed')
      .executeTakeFirstOrThrow();
    expect(message.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const attempt = await waitFor(
      () => otlp.spans.find((s) => s.traceId === traceId && s.name === 'mail claim_filed'),
      30_000,
      'the mail attempt span',
    );
    // The attempt is the request's child (the message was written by one of its statements,
    // itself the request's), and the job that ran it, a trace of its own, is linked.
    const parentOfRow = message.traceparent!.split('-')[2];
    expect(attempt).toMatchObject({ parentSpanId: parentOfRow, kind: SPAN_KIND.CLIENT });
    expect([
      requestSpanId,
      ...otlp.spans.filter((s) => s.parentSpanId === requestSpanId).map((s) => s.spanId),
    ]).toContain(parentOfRow);
    expect(attempt.attributes).toMatchObject({ 'mail.id': message.id, 'mail.kind': 'claim_filed', 'mail.attempt': 1 });
    const job = await waitFor(
      () => otlp.spans.find((s) => s.spanId === attempt.links[0]?.spanId),
      10_000,
      'the mail job span',
    );
    expect(job).toMatchObject({ name: 'job mail_send', kind: SPAN_KIND.CONSUMER });
    expect(JSON.stringify(otlp.spans)).not.toContain(shopperEmail);
  }, 60_000);

  it("hold a dashboard form's POST in one trace: the page's span names the store and the person, its API calls are its children", async () => {
    const installed = await installedAppWithToken(database.db, secret, baseUrl, 'traced-page', [
      'order:update',
      'claim:manage',
    ]);
    const api = (method: string, path: string, json: unknown) =>
      fetch(baseUrl + path, {
        method,
        headers: { authorization: `Bearer ${installed.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      });
    expect((await api('PUT', '/v1/orders/o-page', orderBody({ premiumPaid: 1 }))).status).toBe(200);
    expect((await api('POST', '/v1/claims/o-page', claimBody())).status).toBe(200);
    const { id: claimId } = await database.db
      .selectFrom('claims')
      .select('id')
      .where('storeId', '=', installed.store.id)
      .executeTakeFirstOrThrow();
    const session = await pageSession(
      { baseUrl, request: (path: string, init?: RequestInit) => fetch(baseUrl + path, init) } as unknown as TestServer,
      { email: installed.user.email, password: installed.password },
    );
    const traceId = randomBytes(16).toString('hex');
    const posted = await fetch(`${baseUrl}/dashboard/stores/${installed.store.id}/claims/${claimId}/note`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: session.cookie,
        origin: baseUrl,
        'content-type': 'application/x-www-form-urlencoded',
        traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
      },
      body: new URLSearchParams({ csrf: session.csrf, note: 'Called the carrier' }),
    });
    expect(posted.status).toBe(303);
    const pageSpanId = /^00-[0-9a-f]{32}-([0-9a-f]{16})-01$/.exec(posted.headers.get('traceresponse') ?? '')![1]!;
    const page = await waitFor(() => otlp.spans.find((s) => s.spanId === pageSpanId), 10_000, 'the page span');
    expect(page).toMatchObject({ traceId, name: 'POST /dashboard/stores/:storeId/claims/:claimId/note' });
    expect(page.attributes).toMatchObject({ 'app.store_id': installed.store.id, 'app.user_id': installed.user.id });
    const note = await waitFor(
      () => otlp.spans.find((s) => s.traceId === traceId && s.name === 'POST /v1/claims/:claimId/notes'),
      10_000,
      'the API call span',
    );
    expect(note).toMatchObject({ parentSpanId: pageSpanId, kind: SPAN_KIND.SERVER });
    expect(note.attributes).toMatchObject({ 'app.store_id': installed.store.id, 'http.response.status_code': 201 });
  }, 60_000);

  it('count delivery and e-mail attempts by outcome, jobs by task and idempotent replays', async () => {
    const installed = await installedAppWithToken(
      database.db,
      secret,
      baseUrl,
      'figures',
      ['order:update', 'claim:manage'],
      { webhookUrl: `${hooks.url}/figures`, webhookTopics: ['claim/created'] },
    );
    hooks.respond('/figures', answer(500));
    const call = (method: string, path: string, json: unknown, key?: string) =>
      fetch(baseUrl + path, {
        method,
        headers: {
          authorization: `Bearer ${installed.token}`,
          'content-type': 'application/json',
          ...(key ? { 'idempotency-key': key } : {}),
        },
        body: JSON.stringify(json),
      });
    expect((await call('PUT', '/v1/orders/o-figures', orderBody({ premiumPaid: 1 }))).status).toBe(200);
    const before = await scrape(metricsUrl);
    const filed = await call('POST', '/v1/claims/o-figures', claimBody(), 'figures-1');
    expect(filed.status).toBe(200);
    const replayed = await call('POST', '/v1/claims/o-figures', claimBody(), 'figures-1');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    await waitFor(() => hooks.at('/figures')[0], 30_000, 'the rejected webhook');
    const count = (text: string, name: string, labels: Record<string, string>) => sample(text, name, labels);
    await expect
      .poll(
        async () => count(await scrape(metricsUrl), 'webhook_attempt_duration_seconds_count', { outcome: 'rejected' }),
        {
          timeout: 10_000,
        },
      )
      .toBe(count(before, 'webhook_attempt_duration_seconds_count', { outcome: 'rejected' }) + 1);
    const after = await scrape(metricsUrl);
    expect(count(after, 'webhook_attempt_duration_seconds_count', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
    // The job ends after its attempts' outcomes are written: waited for, not assumed.
    const jobs = (text: string) =>
      count(text, 'job_duration_seconds_count', { task: 'webhook_deliver', outcome: 'completed' });
    await expect.poll(async () => jobs(await scrape(metricsUrl)), { timeout: 10_000 }).toBeGreaterThan(jobs(before));
    expect(count(after, 'idempotent_replays_total', { route: '/v1/claims/:sourceOrderId' })).toBe(1);
    // The claim's notice to the shopper: one send attempt more (not_sent here: no SMTP server).
    const mails = (text: string) => count(text, 'mail_attempt_duration_seconds_count', {});
    await expect.poll(async () => mails(await scrape(metricsUrl)), { timeout: 10_000 }).toBeGreaterThan(mails(before));
    expect(
      count(await scrape(metricsUrl), 'mail_attempt_duration_seconds_count', { outcome: 'not_sent' }),
    ).toBeGreaterThan(0);
  }, 60_000);
});
