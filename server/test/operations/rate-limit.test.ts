import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rate-limit';
import { withinOneRateWindow } from '../harness/fixtures';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D4's per-process counting (`local`): a process's hits are written to the shared counter in
 * batches, and while a batch is being written its hits must still count, or a request decided
 * during the write sees them gone and is let through over the limit.
 */
describe('the local rate limiter (D4)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('counts the hits of a write in flight: the limit holds while they are being written', async () => {
    await withinOneRateWindow();
    const limiter = new RateLimiter(server.db, 3_600_000);
    try {
      const key = `test:in-flight:${Date.now()}`;
      const now = Date.now();
      expect(limiter.local(key, 3, now).allowed).toBe(true);
      const writing = limiter.flush();
      const during = [limiter.local(key, 3, now), limiter.local(key, 3, now), limiter.local(key, 3, now)];
      await writing;
      expect(during.map((d) => d.allowed)).toEqual([true, true, false]);
      await limiter.flush();
      expect(limiter.local(key, 3, now).allowed).toBe(false);
    } finally {
      limiter.stop();
    }
  });
});
