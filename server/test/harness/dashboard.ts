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
