'use server';

import { revalidatePath } from 'next/cache';
import { sessionMay } from '@/lib/http/session';
import { manageUser, type AdminResult } from '@/lib/auth/user-admin';
import { ownerChange } from '@/lib/tokens/owner';

/** The one server action of /admin/users: the session and role are checked on every call, not trusted from the page. */
export async function userAction(_previous: AdminResult | null, form: FormData): Promise<AdminResult> {
  const session = await sessionMay('users');
  if (!session) return { ok: false, message: 'Only admins may manage users. Sign in again.' };
  const input = Object.fromEntries(form);
  // Their API tokens act for them: suspended or resumed with the account, audited (lib/tokens/owner.ts).
  const result = await ownerChange(session.user, String(input.email ?? ''), () => manageUser(session.user, input));
  if (result.ok) revalidatePath('/admin/users');
  return result;
}
