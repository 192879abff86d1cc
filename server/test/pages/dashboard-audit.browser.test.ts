import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, expectAccessible, launchChromium, NO_CHROMIUM, screenshots } from '../harness/browser';
import { type ClaimStore, claimStore } from '../harness/claims';
import { addMember, signedInPage } from '../harness/dashboard';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D53's audit page in headless Chromium: an owner finds who did what, filters it and pages
 * through it; a change made in the dashboard carries the person's browser, not the
 * dashboard's own call over loopback; an agent is neither offered the page nor shown it.
 */
if (!CHROMIUM) console.warn(`[pages] dashboard audit browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('the dashboard audit page in headless Chromium (D50, D53)', () => {
  let server: TestServer;
  let browser: Browser;
  let s: ClaimStore;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { token: 1e9 } });
    s = await claimStore(server, 'dash-audit');
    for (const n of [1, 2, 3]) {
      await s.putOrder(`audit-page-${n}`);
      const claimId = await s.fileId(`audit-page-${n}`);
      expect((await s.post(`/v1/claims/${claimId}/transition`, { claimState: 'OPEN' })).status).toBe(200);
    }
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const me = () => ({ email: s.owner.user.email, password: s.owner.password });

  it("shows the owner who did what, with the person's own browser for a dashboard change", async () => {
    const { context, page } = await signedInPage(browser, server, me());
    // A change through the dashboard: its audit line must name this browser, not the dashboard.
    await page.goto(`${server.baseUrl}/dashboard/stores/${s.owner.store.id}/settings`);
    await page.getByLabel('Most store credit (percent of the claim)').fill('55');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.url()).toContain('notice=settingsSaved');

    await page.getByRole('navigation', { name: 'Store' }).getByRole('link', { name: 'Audit log' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Audit log');
    const rows = page.getByRole('row');
    await expect.poll(() => rows.count()).toBeGreaterThan(4);
    const settingsRow = page.getByRole('row').filter({ hasText: 'Settings changed' });
    expect(await settingsRow.count()).toBe(1);
    const text = await settingsRow.innerText();
    expect(text).toContain(s.owner.user.email);
    expect(text).toContain('HeadlessChrome');
    expect(text).not.toContain('protection-service-dashboard');
    expect(text).toMatch(/127\.0\.0\.1|::1/);
    await expectAccessible(browser, page, 'audit');
    await screenshots(page, 'dashboard-audit');

    // Filter: only the moves.
    await page.getByLabel('What').selectOption('claim.moved');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.url()).toContain('action=claim.moved');
    const moved = page.getByRole('row').filter({ hasText: 'Claim moved' });
    expect(await moved.count()).toBe(3);
    expect(await page.getByRole('row').count()).toBe(4);
    await context.close();
  });

  it('pages through the log 50 at a time', async () => {
    for (let n = 0; n < 50; n++) {
      await server.db
        .insertInto('auditEvents')
        .values({
          id: `aud_page_${n}`,
          storeId: s.owner.store.id,
          at: new Date(Date.UTC(2026, 0, 1, 0, n)),
          actorType: 'app',
          actorId: s.clientId,
          action: 'claim.moved',
          targetType: 'claim',
          targetId: `clm_${n}`,
          actorEmail: null,
          changes: null,
          ip: '198.51.100.1',
          userAgent: null,
          requestId: null,
        })
        .execute();
    }
    const { context, page } = await signedInPage(browser, server, me());
    await page.goto(`${server.baseUrl}/dashboard/stores/${s.owner.store.id}/audit`);
    expect(await page.getByRole('row').count()).toBe(51);
    await page.getByRole('link', { name: 'Next page' }).click();
    await expect.poll(() => page.url()).toContain('after=');
    await expect.poll(() => page.getByRole('row').count()).toBeGreaterThan(1);
    expect(await page.getByRole('link', { name: 'First page' }).count()).toBe(1);
    await expectAccessible(browser, page, 'audit-page-2');
    await context.close();
  });

  it('neither offers nor shows the log to an agent', async () => {
    const agent = await addMember(server, s.owner.store.id, 'agent');
    const { context, page } = await signedInPage(browser, server, agent);
    await page.goto(`${server.baseUrl}/dashboard/stores/${s.owner.store.id}`);
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
    const res = await page.goto(`${server.baseUrl}/dashboard/stores/${s.owner.store.id}/audit`);
    expect(res?.status()).toBe(403);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your role does not allow this');
    await expectAccessible(browser, page, 'audit-refused');
    await context.close();
  });
});
