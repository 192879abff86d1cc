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
      expect(limiter.local(key, 3, now)?.allowed).toBe(true);
      await limiter.flush();
      expect(limiter.local(key, 3, now)?.allowed).toBe(true);
      const writing = limiter.flush();
      const during = [limiter.local(key, 3, now)?.allowed, limiter.local(key, 3, now)?.allowed];
      await writing;
      expect(during).toEqual([true, false]);
      await limiter.flush();
      expect(limiter.local(key, 3, now)?.allowed).toBe(false);
    } finally {
      limiter.stop();
    }
  });

  /** Admits `n` hits through `limiter` as a request does, and answers how many it let through. */
  const admit = async (limiter: RateLimiter, key: string, limit: number, n: number) => {
    let admitted = 0;
    for (let i = 0; i < n; i++) {
      const d = limiter.local(key, limit) ?? (await limiter.shared(key, limit));
      if (d.allowed) admitted++;
    }
    return admitted;
  };

  it('admits past its own tenth only on the shared total: a second process learns what the first counted', async () => {
    await withinOneRateWindow();
    const [a, b] = [new RateLimiter(server.db, 3_600_000), new RateLimiter(server.db, 3_600_000)];
    try {
      const key = `test:share:${Date.now()}`;
      expect(await admit(a, key, 100, 50)).toBe(50);
      await a.flush();
      // b's first tenth is its own (D4's (P - 1) tenths); its eleventh waits for the total.
      expect(b.local(key, 100)).toBeDefined();
      expect(await admit(b, key, 100, 9)).toBe(9);
      expect(b.local(key, 100)).toBeUndefined();
      expect(await admit(b, key, 100, 60)).toBe(40);
    } finally {
      a.stop();
      b.stop();
    }
  });

  it('does not admit on a total older than one flush: a process idle on a key learns it again first', async () => {
    await withinOneRateWindow();
    const a = new RateLimiter(server.db, 50);
    const b = new RateLimiter(server.db, 3_600_000);
    try {
      const key = `test:stale:${Date.now()}`;
      expect(await admit(a, key, 100, 10)).toBe(10);
      await a.flush();
      expect(await admit(b, key, 100, 80)).toBe(80);
      await b.flush();
      // a learned the total (10) once, then saw nothing of the key for longer than its flush.
      await new Promise((r) => setTimeout(r, 120));
      expect(a.local(key, 100)).toBeUndefined();
      expect(await admit(a, key, 100, 50)).toBe(10);
    } finally {
      a.stop();
      b.stop();
    }
  });
});
