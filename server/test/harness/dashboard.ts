import { randomBytes } from 'node:crypto';
import type { Role } from '@protection-service/contract';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { createUser } from '../../src/domain/identity/users';
import type { TestServer } from './server';

/** A person with a dashboard account: what they type to sign in. */
export interface Person {
  userId: string;
  email: string;
  password: string;
}

/** A member of `storeId` with `role` (D49). */
export async function addMember(server: TestServer, storeId: string, role: Role, label = role): Promise<Person> {
  const email = `${label}-${randomBytes(4).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const user = await createUser(server.db, { email, password, storeIds: [storeId], role });
  return { userId: user.id, email, password };
}

/** Signs a person in on the dashboard's sign-in page (D50) and waits for their store list. */
export async function signIn(
  page: Page,
  server: TestServer,
  who: { email: string; password: string },
  next = '/dashboard',
): Promise<void> {
  await page.goto(`${server.baseUrl}/dashboard/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect.poll(() => page.url()).not.toContain('/dashboard/sign-in');
}

/** A new browser context (its own cookies: another person, or the same one elsewhere) with one page, signed in. */
export async function signedInPage(
  browser: Browser,
  server: TestServer,
  who: { email: string; password: string },
  options: { javaScriptEnabled?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await signIn(page, server, who);
  return { context, page };
}

/** A signed-in browser session without a browser: its cookie and CSRF token (D40, D50). */
export interface PageSession {
  cookie: string;
  csrf: string;
}

/** Signs in through the dashboard's sign-in form with fetch, as a browser would. */
export async function pageSession(server: TestServer, who: { email: string; password: string }): Promise<PageSession> {
  const form = await server.request('/dashboard/sign-in');
  const anonymous = form.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  const signedIn = await server.request('/dashboard/sign-in', {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: anonymous, origin: server.baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfOf(await form.text()), email: who.email, password: who.password }),
  });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!;
  const home = await server.request('/dashboard', { headers: { cookie } });
  return { cookie, csrf: csrfOf(await home.text()) };
}
