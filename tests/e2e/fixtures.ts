import { test as base, expect, type Page } from '@playwright/test';

export const USERS = {
  viewer: { email: 'viewer@demo.picks.test', password: 'demo-viewer-pass' },
  editor: { email: 'editor@demo.picks.test', password: 'demo-editor-pass' },
  manager: { email: 'manager@demo.picks.test', password: 'demo-manager-pass' },
  admin: { email: 'admin@demo.picks.test', password: 'demo-admin-pass' },
} as const;

export type RoleName = keyof typeof USERS;

export async function signIn(page: Page, role: RoleName, next = '/') {
  await page.goto(`/login?callbackUrl=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(USERS[role].email);
  await page.getByLabel('Password').fill(USERS[role].password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

export const test = base;
export { expect };
