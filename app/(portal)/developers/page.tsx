import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { requirePage } from '@/lib/http/session';
import { tokensForPage } from '@/lib/http/token-pages';
import { themeOf } from '@/lib/theme';
import { PREFERENCE_COOKIES } from '@/lib/vocabulary/preferences';
import { ErrorPanel } from '@/components/error-panel';
import { PageHeader } from '@/components/ui/page-header';
import { ApiReference } from '@/components/developers/api-reference';
import { linkClass, TextLink } from '@/components/ui/text-link';

export const metadata: Metadata = { title: 'API reference' };

/**
 * /developers: the interactive reference of API v1 (and, for admins, of the portal's own API), rendered from the
 * OpenAPI documents the portal serves, in the portal's frame and theme; requests tried with one of the person's own
 * tokens or a pasted one (components/developers). The partner key is never on this page.
 */
export default async function DevelopersPage() {
  const session = await requirePage('tokens', '/developers');
  const [tokens, theme] = await Promise.all([
    tokensForPage(session.user),
    cookies().then((c) => themeOf(c.get(PREFERENCE_COOKIES.theme)?.value)),
  ]);
  const mine = tokens.ok
    ? tokens.value
        .filter((t) => t.owner === session.user.email && t.state === 'active')
        .map((t) => ({ id: t.id, name: t.name, prefix: t.prefix, scope: t.scopeText }))
    : [];
  return (
    <div className="space-y-4">
      <PageHeader title="API reference">
        Every endpoint of API v1 with its parameters, answers and errors, from its OpenAPI document at{' '}
        <a className={linkClass('underline')} href="/api/v1/openapi.json">
          /api/v1/openapi.json
        </a>{' '}
        (the repository’s <code>clients/typescript</code> is a typed client generated from it). Open an endpoint and press “Try” to send a
        request with one of your tokens. What webhooks and the event stream send, and how to check it: the{' '}
        <TextLink className="underline" href="/developers/events">
          event catalogue
        </TextLink>
        .
      </PageHeader>
      {tokens.ok ? null : <ErrorPanel error={tokens.error} retryHref="/developers" />}
      <ApiReference tokens={mine} portalApi={session.user.role === 'admin'} theme={theme} />
    </div>
  );
}
