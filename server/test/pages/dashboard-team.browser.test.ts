import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/job-runner';
import {
  CHROMIUM,
  expectAccessible,
  expectFormsCarryCsrf,
  launchChromium,
  NO_CHROMIUM,
  screenshots,
} from '../harness/browser';
import { type ClaimStore, claimBody, claimStore } from '../harness/claims';
import { addMember, pageSession, signedInPage } from '../harness/dashboard';
import { type SmtpSink, startMailRunner, startSmtpSink } from '../harness/mail';
import { startTestServer, type TestServer } from '../harness/server';

/**
 * D53's team and invitation pages in headless Chromium: an owner invites a colleague as claims
 * agent, the colleague opens the link of the e-mail that a real SMTP server received, sets a
 * name and password, joins and sees the store's claims; the link then answers 404. The rules
 * an admin and the last owner live under are said on the page; a viewer gets no forms; a member
 * opts in to notices; forged posts change nothing.
 */
if (!CHROMIUM) console.warn(`[pages] dashboard team browser tests skipped: ${NO_CHROMIUM}`);

describe.skipIf(!CHROMIUM)('the dashboard team and invitation pages in headless Chromium (D53)', () => {
  let server: TestServer;
  let browser: Browser;
  let sink: SmtpSink;
  let delivery: Delivery;
  let s: ClaimStore;

  beforeAll(async () => {
    server = await startTestServer({}, { rateLimits: { auth: 10_000 } });
    sink = await startSmtpSink();
    ({ delivery } = await startMailRunner(server, { smtpUrl: sink.url, mailFrom: 'team@shop.test' }));
    s = await claimStore(server, 'dash-team');
    await s.putOrder('o-team-1', { sourceOrderNumber: '#T1' });
    await s.fileId('o-team-1', claimBody({ email: 'shopper-team@example.com' }));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await delivery?.stop();
    await sink?.close();
    await server?.close();
  });

  const teamUrl = () => `${server.baseUrl}/dashboard/stores/${s.owner.store.id}/team`;
  const owner = () => ({ email: s.owner.user.email, password: s.owner.password });
  const linkIn = (email: string) =>
    /https?:\/\/\S+\/dashboard\/invitations\/\S+/.exec(sink.to(email).at(-1)?.mail.text ?? '')?.[0] ?? '';

  it('an owner invites a claims agent, who joins from the e-mail and sees the claims; the link works once', async () => {
    const { context, page } = await signedInPage(browser, server, owner());
    await page.goto(teamUrl());
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Team');
    await expect.poll(() => page.getByRole('link', { name: 'Team' }).getAttribute('aria-current')).toBe('page');
    // The only owner: the page says why it offers no change.
    expect(await page.getByText('The only owner: make another member owner first.').count()).toBe(1);
    await expectAccessible(browser, page, 'team');
    await expectFormsCarryCsrf(page);
    await screenshots(page, 'dashboard-team');

    const colleague = 'colleague-team@example.com';
    await page.getByLabel('E-mail', { exact: true }).fill(colleague);
    await page.getByLabel('Role', { exact: true }).selectOption('agent');
    await page.getByRole('button', { name: 'Invite' }).click();
    await expect.poll(() => page.url()).toContain('notice=invited');
    expect(await page.getByRole('cell', { name: colleague, exact: true }).count()).toBe(1);
    await context.close();

    await expect.poll(() => sink.to(colleague).length, { timeout: 15_000, interval: 100 }).toBe(1);
    const link = linkIn(colleague);
    expect(link).toContain('/dashboard/invitations/');

    // The colleague's own browser: no session.
    const theirs = await browser.newContext();
    const invitation = await theirs.newPage();
    await invitation.goto(link);
    expect(await invitation.getByRole('heading', { level: 1 }).textContent()).toBe(`Join ${s.owner.store.name}`);
    await expectAccessible(browser, invitation, 'invitation');
    await expectFormsCarryCsrf(invitation);
    await screenshots(invitation, 'dashboard-invitation');
    await invitation.getByLabel('Name').fill('Casey Colleague');
    await invitation.getByLabel('Password').fill('a long enough password');
    await invitation.getByRole('button', { name: 'Join' }).click();
    await expect.poll(() => invitation.url()).toBe(`${server.baseUrl}/dashboard/stores/${s.owner.store.id}`);
    await invitation.goto(`${server.baseUrl}/dashboard/stores/${s.owner.store.id}/claims?tab=all`);
    expect(await invitation.getByRole('cell', { name: '#T1' }).count()).toBe(1);

    // Accepted once: the same link is the 404 page now.
    const again = await invitation.goto(link);
    expect(again?.status()).toBe(404);
    expect(await invitation.getByRole('heading', { level: 1 }).textContent()).toBe('This invitation does not work');
    await expectAccessible(browser, invitation, 'invitation-gone');
    await theirs.close();

    const member = await server.db
      .selectFrom('storeMembers as m')
      .innerJoin('dashboardUsers as u', 'u.id', 'm.userId')
      .select(['m.role', 'u.firstName'])
      .where('u.email', '=', colleague)
      .executeTakeFirstOrThrow();
    expect(member).toEqual({ role: 'agent', firstName: 'Casey Colleague' });
  }, 90_000);

  it('an account that exists joins by signing in with its own password', async () => {
    const other = await claimStore(server, 'dash-team-other');
    const { page, context } = await signedInPage(browser, server, owner());
    await page.goto(teamUrl());
    await page.getByLabel('E-mail', { exact: true }).fill(other.owner.user.email);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Invite' }).click();
    await expect.poll(() => page.url()).toContain('notice=invited');
    await context.close();
    await expect.poll(() => sink.to(other.owner.user.email).length, { timeout: 15_000, interval: 100 }).toBe(1);

    const theirs = await browser.newContext();
    const invitation = await theirs.newPage();
    await invitation.goto(linkIn(other.owner.user.email));
    expect(await invitation.getByLabel('Name').count()).toBe(0);
    await invitation.getByLabel('Password').fill('not the password');
    await invitation.getByRole('button', { name: 'Join' }).click();
    expect(await invitation.getByRole('alert').innerText()).toBe('Wrong password for this account.');
    await invitation.getByLabel('Password').fill(other.owner.password);
    await invitation.getByRole('button', { name: 'Join' }).click();
    await expect.poll(() => invitation.url()).toBe(`${server.baseUrl}/dashboard/stores/${s.owner.store.id}`);
    await theirs.close();
  }, 90_000);

  it('an admin is told they cannot change owners; a viewer gets no forms; anyone opts in to notices', async () => {
    const admin = await addMember(server, s.owner.store.id, 'admin');
    const { page, context } = await signedInPage(browser, server, admin);
    await page.goto(teamUrl());
    expect(await page.getByText('Only an owner can change an owner.').count()).toBeGreaterThan(0);
    const roles = await page.getByLabel('Role', { exact: true }).locator('option').allTextContents();
    expect(roles).not.toContain('Owner');
    await expectAccessible(browser, page, 'team-admin');
    await context.close();

    const viewer = await addMember(server, s.owner.store.id, 'viewer');
    const seen = await signedInPage(browser, server, viewer);
    await seen.page.goto(teamUrl());
    expect(await seen.page.getByRole('button', { name: 'Invite' }).count()).toBe(0);
    expect(await seen.page.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await seen.page.getByLabel('E-mail me when a claim is filed').check();
    await seen.page.getByRole('button', { name: 'Save notices' }).click();
    await expect.poll(() => seen.page.url()).toContain('notice=noticesSaved');
    expect(await seen.page.getByLabel('E-mail me when a claim is filed').isChecked()).toBe(true);
    await expectAccessible(browser, seen.page, 'team-viewer');
    await seen.context.close();

    await s.putOrder('o-team-2', { sourceOrderNumber: '#T2' });
    await s.fileId('o-team-2', claimBody({ email: 'shopper-team2@example.com' }));
    await expect.poll(() => sink.to(viewer.email).length, { timeout: 15_000, interval: 100 }).toBe(1);
    expect(sink.to(viewer.email)[0]!.mail.subject).toBe('New claim for order #T2');
  }, 90_000);

  it('a forged invite or removal (no CSRF token, another origin) changes nothing', async () => {
    const agent = await addMember(server, s.owner.store.id, 'agent');
    const session = await pageSession(server, owner());
    const count = async () =>
      Number(
        (
          await server.db
            .selectFrom('memberInvitations')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const post = (path: string, body: Record<string, string>, origin = server.baseUrl) =>
      server.request(`/dashboard/stores/${s.owner.store.id}/team/${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: session.cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body),
      });
    expect((await post('invite', { email: 'forged@example.com', role: 'admin' })).status).toBe(403);
    expect(
      (await post('invite', { csrf: session.csrf, email: 'forged@example.com', role: 'admin' }, 'https://evil.test'))
        .status,
    ).toBe(403);
    expect((await post(`${agent.userId}/remove`, {})).status).toBe(403);
    expect(await count()).toBe(before);
    const still = await server.db
      .selectFrom('storeMembers')
      .select('role')
      .where('userId', '=', agent.userId)
      .executeTakeFirst();
    expect(still?.role).toBe('agent');
  });
});
