import type { Metadata } from 'next';
import { requirePage } from '@/lib/http/session';
import { PageHeader } from '@/components/ui/page-header';
import { TextLink } from '@/components/ui/text-link';
import { EventCatalogue } from '@/components/developers/event-catalogue';

export const metadata: Metadata = { title: 'Event catalogue' };

/** /developers/events: what a consumer webhook and the event stream send, and how to check it (docs/api-v1.md). */
export default async function EventCataloguePage() {
  await requirePage('tokens', '/developers/events');
  return (
    <div className="space-y-6">
      <PageHeader title="Event catalogue">
        Every message a token’s webhooks receive — the five event types, <code>gap</code> and the test event — with when it is sent, an
        example and its schema, as the OpenAPI document’s <code>webhooks</code> state them; then how to check a signature and a saved
        stream. Webhooks are set up on a token’s page; the{' '}
        <TextLink className="underline" href="/developers">
          API reference
        </TextLink>{' '}
        has every endpoint.
      </PageHeader>
      <EventCatalogue />
    </div>
  );
}
