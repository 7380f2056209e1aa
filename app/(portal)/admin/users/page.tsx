import type { Metadata } from 'next';
import { DataTable, type Column } from '@/components/ui/data-table';
import { AddUserForm, UserRowActions } from '@/components/admin/user-forms';
import { UtcTime } from '@/components/utc-time';
import { requirePage } from '@/lib/http/session';
import { listUsers } from '@/lib/auth/users';
import type { StoredUser } from '@/lib/store/users';
import { userAction } from './actions';
import { PageHeader } from '@/components/ui/page-header';

export const metadata: Metadata = { title: 'Users' };

/** The columns, for the signed-in admin (who is marked "(you)"). */
function columns(me: string): Column<StoredUser>[] {
  return [
    {
      id: 'email',
      header: 'Email',
      className: 'font-medium',
      cell: (user) => (
        <>
          {user.email}
          {user.email === me ? <span className="ml-1 text-xs text-slate-500">(you)</span> : null}
        </>
      ),
    },
    { id: 'role', header: 'Role', cell: (user) => user.role },
    { id: 'created', header: 'Created', cell: (user) => <UtcTime iso={user.createdAt} /> },
    {
      id: 'last-sign-in',
      header: 'Last sign-in',
      cell: (user) => (user.lastSignInAt ? <UtcTime iso={user.lastSignInAt} /> : <span className="text-slate-500">never</span>),
    },
    { id: 'status', header: 'Status', cell: (user) => `${user.disabled ? 'disabled' : 'enabled'}${user.demo ? ' · demo' : ''}` },
    {
      id: 'change',
      header: 'Change',
      cell: (user) => <UserRowActions action={userAction} email={user.email} role={user.role} disabled={user.disabled} />,
    },
  ];
}

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
      <DataTable
        testId="users-table"
        cards
        columns={columns(session.user.email)}
        rows={users}
        rowKey={(user) => user.email}
        rowData={(user) => ({ 'data-user': user.email })}
        rowId={(user) => `user-${encodeURIComponent(user.email)}`}
      />
    </div>
  );
}
