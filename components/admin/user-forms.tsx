'use client';

import { useActionState } from 'react';
import { ROLES } from '@/lib/vocabulary/roles';
import type { AdminResult } from '@/lib/auth/user-admin';
import { Button, buttonClass } from '@/components/ui/button';
import { controlClass } from '@/components/ui/field';
import { cardClass } from '@/components/ui/card';

/** The forms of /admin/users. Each posts to the page's server action and shows its answer, and a generated password once. */

type Action = (previous: AdminResult | null, form: FormData) => Promise<AdminResult>;

const button = buttonClass('secondary', 'sm');
const field = controlClass(true);

function Result({ state }: { state: AdminResult | null }) {
  return (
    <div
      role="status"
      aria-live="polite"
      data-testid="admin-result"
      data-ok={state ? String(state.ok) : undefined}
      className="mt-1 text-xs"
    >
      {state ? <span className={state.ok ? 'text-emerald-700' : 'text-red-700'}>{state.message}</span> : null}
      {state?.oneTimePassword ? (
        <output data-testid="one-time-password" className="ml-2 rounded bg-amber-50 px-1.5 py-0.5 font-mono text-amber-900">
          {state.oneTimePassword}
        </output>
      ) : null}
    </div>
  );
}

export function AddUserForm({ action }: { action: Action }) {
  const [state, submit, pending] = useActionState(action, null);
  return (
    <form action={submit} aria-label="Add a user" className={cardClass('p-4')}>
      <input type="hidden" name="op" value="add" />
      <div className="flex flex-wrap items-end gap-3 text-sm">
        <label className="flex flex-col gap-1">
          Email
          <input name="email" type="email" required className={field} />
        </label>
        <label className="flex flex-col gap-1">
          Role
          <select name="role" defaultValue="viewer" className={field}>
            {ROLES.map((role) => (
              <option key={role}>{role}</option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1">
          Password (empty: generate one)
          <input name="password" type="password" autoComplete="new-password" className={field} />
        </label>
        <Button type="submit" tone="primary" disabled={pending}>
          Add user
        </Button>
      </div>
      <Result state={state} />
    </form>
  );
}

export function UserRowActions({ action, email, role, disabled }: { action: Action; email: string; role: string; disabled: boolean }) {
  const [state, submit, pending] = useActionState(action, null);
  return (
    <form action={submit} aria-label={`Change ${email}`}>
      <input type="hidden" name="email" value={email} />
      <div className="flex flex-wrap items-center gap-1.5">
        <select key={role} name="role" defaultValue={role} aria-label={`Role of ${email}`} className={field}>
          {ROLES.map((option) => (
            <option key={option}>{option}</option>
          ))}
        </select>
        <button type="submit" name="op" value="role" disabled={pending} className={button}>
          Change role
        </button>
        <button type="submit" name="op" value={disabled ? 'enable' : 'disable'} disabled={pending} className={button}>
          {disabled ? 'Enable' : 'Disable'}
        </button>
        <button type="submit" name="op" value="reset" disabled={pending} className={button}>
          Reset password
        </button>
        <button
          type="submit"
          name="op"
          value="remove"
          disabled={pending}
          className={buttonClass('remove', 'sm')}
          onClick={(event) => {
            if (!window.confirm(`Remove ${email}? They can no longer sign in.`)) event.preventDefault();
          }}
        >
          Remove
        </button>
      </div>
      <Result state={state} />
    </form>
  );
}
