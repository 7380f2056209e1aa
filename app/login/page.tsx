import type { Metadata } from 'next';
import type { PageSearchParams } from '@/lib/picks-api/filters';
import { redirect } from 'next/navigation';
import { LoginForm } from '@/components/auth/login-form';
import { safeCallbackPath } from '@/lib/auth/callback';
import { getPortalSession } from '@/lib/http/session';
import { getConfig } from '@/lib/config';
import { DEMO_USERS } from '@/lib/auth/demo-users';
import { PageTitle } from '@/components/ui/page-header';
import { Card } from '@/components/ui/card';

export const metadata: Metadata = { title: 'Sign in' };

export default async function LoginPage({ searchParams }: { searchParams: Promise<PageSearchParams> }) {
  const params = await searchParams;
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const callbackUrl = safeCallbackPath(first(params.callbackUrl));
  if (await getPortalSession()) redirect(callbackUrl);
  const error = first(params.error)?.slice(0, 40) ?? null;

  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <Card className="w-full max-w-sm p-8 shadow-sm">
        <div className="mb-6 flex items-center gap-3">
          {/* eslint-disable-next-line @next/next/no-img-element */}
          <img src="/icon.svg" alt="" width={36} height={36} />
          <div>
            <PageTitle size="card">Picks Partner Portal</PageTitle>
            <p className="text-sm text-slate-500">Sign in with your portal account</p>
          </div>
        </div>
        <LoginForm callbackUrl={callbackUrl} initialError={error} oidcName={getConfig().oidc?.name ?? null} />
        {getConfig().PORTAL_SANDBOX && (
          // Beside the sandbox only (demo accounts are refused anywhere else): the sign-ins npm start prints.
          <details className="mt-6 text-sm text-slate-600" data-testid="demo-sign-ins">
            <summary className="cursor-pointer font-medium text-slate-700">Demo sign-ins (sandbox only)</summary>
            <ul className="mt-2 space-y-0.5 text-xs">
              {DEMO_USERS.map((user) => (
                <li key={user.email} className="flex gap-2">
                  <span className="w-14">{user.role}</span>
                  <span className="font-mono">{user.email}</span>
                  <span className="font-mono">{user.password}</span>
                </li>
              ))}
            </ul>
          </details>
        )}
      </Card>
    </main>
  );
}
