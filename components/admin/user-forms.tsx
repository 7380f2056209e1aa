'use client';

import { useActionState } from 'react';
import { ROLES } from '@/lib/vocabulary/roles';
import type { AdminResult } from '@/lib/auth/user-admin';
import { Button, buttonClass } from '@/components/ui/button';
import { controlClass, SelectField, TextField } from '@/components/ui/field';
import { SecretBox } from '@/components/ui/secret-box';
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
        <div className="mt-2">
          <SecretBox title="The new password" value={state.oneTimePassword} testId="one-time-password" />
        </div>
      ) : null}
    </div>
  );
}

export function AddUserForm({ action }: { action: Action }) {
  const [state, submit, pending] = useActionState(action, null);
  return (
    <form id="add-user" action={submit} aria-label="Add a user" className={cardClass('p-4')} noValidate>
      <input type="hidden" name="op" value="add" />
      <div className="grid items-end gap-3 text-sm sm:grid-cols-2 lg:grid-cols-[2fr_1fr_2fr_auto]">
        {/* A refused form keeps what was typed (React resets a form after its action), each problem beside its field. */}
        <TextField
          key={`email-${state?.values?.email ?? ''}`}
          label="Email"
          name="email"
          type="email"
          required
          id="user-email"
          defaultValue={state?.values?.email}
          error={state?.details?.email}
        />
        <SelectField
          key={`role-${state?.values?.role ?? ''}`}
          label="Role"
          name="role"
          options={ROLES}
          defaultValue={state?.values?.role || 'viewer'}
          id="user-role"
          error={state?.details?.role}
        />
        <TextField
          label="Password (empty: generate one)"
          name="password"
          type="password"
          autoComplete="new-password"
          id="user-password"
          error={state?.details?.password}
        />
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
