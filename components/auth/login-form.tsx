'use client';

import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { SIGN_IN_ERRORS } from '@/lib/vocabulary/sign-in-errors';
import { Button } from '@/components/ui/button';
import { Notice } from '@/components/ui/notice';

export function LoginForm({
  callbackUrl,
  initialError,
  oidcName,
}: {
  callbackUrl: string;
  initialError: string | null;
  oidcName: string | null;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(initialError ? (SIGN_IN_ERRORS[initialError] ?? 'Sign-in failed. Try again.') : null);
  const [pending, setPending] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const result = await signIn('credentials', {
      email: String(form.get('email') ?? ''),
      password: String(form.get('password') ?? ''),
      redirect: false,
      callbackUrl,
    });
    setPending(false);
    if (!result || result.error) {
      setError(result?.error ? (SIGN_IN_ERRORS[result.error] ?? result.error) : 'Sign-in failed. Try again.');
      return;
    }
    router.replace(callbackUrl);
    router.refresh();
  }

  return (
    <div className="space-y-6">
      <form onSubmit={submit} className="space-y-4" aria-describedby={error ? 'login-error' : undefined}>
        <div>
          <label htmlFor="email" className="block text-sm font-medium text-slate-700">
            Email
          </label>
          <input
            id="email"
            name="email"
            type="email"
            autoComplete="username"
            required
            maxLength={320}
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 shadow-sm focus:border-brand-500 focus:ring-brand-500"
          />
        </div>
        <div>
          <label htmlFor="password" className="block text-sm font-medium text-slate-700">
            Password
          </label>
          <input
            id="password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            maxLength={1024}
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 shadow-sm focus:border-brand-500 focus:ring-brand-500"
          />
        </div>
        {error && (
          <Notice tone="danger" id="login-error" role="alert">
            {error}
          </Notice>
        )}
        <Button type="submit" tone="primary" size="lg" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </Button>
      </form>
      {oidcName && (
        <Button size="lg" onClick={() => signIn('oidc', { callbackUrl })}>
          Continue with {oidcName}
        </Button>
      )}
    </div>
  );
}
