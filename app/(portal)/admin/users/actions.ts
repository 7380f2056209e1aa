'use server';

import { revalidatePath } from 'next/cache';
import { can } from '@/lib/auth/roles';
import { getPortalSession } from '@/lib/auth/session';
import { manageUser, type AdminResult } from '@/lib/auth/user-admin';

/** The one server action of /admin/users: the session and role are checked on every call, not trusted from the page. */
export async function userAction(_previous: AdminResult | null, form: FormData): Promise<AdminResult> {
  const session = await getPortalSession();
  if (!session || !can(session.user.role, 'users')) return { ok: false, message: 'Only admins may manage users. Sign in again.' };
  const result = await manageUser(session.user, Object.fromEntries(form));
  if (result.ok) revalidatePath('/admin/users');
  return result;
}
