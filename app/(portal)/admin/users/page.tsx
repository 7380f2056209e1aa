import type { Metadata } from 'next';
import { DataTable } from '@/components/data-table';
import { AddUserForm, UserRowActions } from '@/components/admin/user-forms';
import { UtcTime } from '@/components/utc-time';
import { requirePage } from '@/lib/auth/session';
import { listUsers } from '@/lib/auth/users';
import { userAction } from './actions';
import { PageHeader } from '@/components/ui/page-header';

export const metadata: Metadata = { title: 'Users' };

export default async function UsersPage() {
  const session = await requirePage('users', '/admin/users');
  const users = await listUsers();
  return (
    <div className="space-y-6">
      <PageHeader title="Users">
        Everyone who may sign in, with their role. Changes take effect on open sessions within seconds, on every instance, and are recorded
        in the audit trail. The last enabled admin cannot be removed, disabled or demoted.
      </PageHeader>
      <AddUserForm action={userAction} />
      <DataTable testId="users-table" columns={['Email', 'Role', 'Created', 'Last sign-in', 'Status', 'Change']}>
        {users.map((user) => (
          <tr key={user.email} data-user={user.email} className="border-t border-slate-100 align-top">
            <td className="px-3 py-2 font-medium">
              {user.email}
              {user.email === session.user.email ? <span className="ml-1 text-xs text-slate-500">(you)</span> : null}
            </td>
            <td className="px-3 py-2" data-cell="role">
              {user.role}
            </td>
            <td className="px-3 py-2">
              <UtcTime iso={user.createdAt} />
            </td>
            <td className="px-3 py-2">
              {user.lastSignInAt ? <UtcTime iso={user.lastSignInAt} /> : <span className="text-slate-500">never</span>}
            </td>
            <td className="px-3 py-2" data-cell="status">
              {user.disabled ? 'disabled' : 'enabled'}
              {user.demo ? ' · demo' : ''}
            </td>
            <td className="px-3 py-2">
              <UserRowActions action={userAction} email={user.email} role={user.role} disabled={user.disabled} />
            </td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
