import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';

const KEY = 'a'.repeat(43);

/** The D35 delivery settings as the environment gives them. */
describe('webhook configuration', () => {
  it('defaults to the published schedule, a 5 s timeout and 10 workers', () => {
    const config = loadConfig({ SECRET_KEY: KEY });
    expect(config.webhookRetrySchedule).toEqual([60, 300, 1800, 7200, 21600, 43200, 86400]);
    expect(config.webhookTimeoutMs).toBe(5000);
    expect(config.webhookWorkers).toBe(10);
  });

  it('reads a schedule of seconds, a timeout and 0 workers (API only)', () => {
    const config = loadConfig({
      SECRET_KEY: KEY,
      WEBHOOK_RETRY_SCHEDULE: '1, 2,3',
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_WORKERS: '0',
    });
    expect(config.webhookRetrySchedule).toEqual([1, 2, 3]);
    expect(config.webhookTimeoutMs).toBe(1500);
    expect(config.webhookWorkers).toBe(0);
  });

  it.each([
    ['WEBHOOK_RETRY_SCHEDULE', '60,soon'],
    ['WEBHOOK_RETRY_SCHEDULE', '-1'],
    ['WEBHOOK_RETRY_SCHEDULE', '90000'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_WORKERS', '-2'],
  ])('refuses %s=%s by name', (name, value) => {
    expect(() => loadConfig({ SECRET_KEY: KEY, [name]: value })).toThrow(name);
  });
});
