import { z } from 'zod';
import { EVENT_CATALOGUE } from '@/lib/api-v1/catalogue';
import { EXAMPLE_STREAM } from '@/lib/api-v1/examples';
import { SIGNATURE_SNIPPETS, STREAM_SNIPPETS, type Snippet } from '@/lib/api-v1/verify-snippets';
import { Card } from '@/components/ui/card';
import { CodeBlock } from '@/components/ui/code-block';

/**
 * The event catalogue (/developers/events): every message a consumer webhook receives, with when, an example and its
 * schema, from the list the OpenAPI document's `webhooks` are made of (lib/api-v1/catalogue.ts); the stream's frames;
 * and how to check a signature and a saved stream, in code the unit suite runs (lib/api-v1/verify-snippets.ts).
 */

const json = (value: unknown) => JSON.stringify(value, null, 2);

function Snippets({ title, snippets, id }: { title: string; snippets: Snippet[]; id: string }) {
  return (
    <section aria-labelledby={id} className="space-y-3">
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      {snippets.map((snippet) => (
        <Card key={snippet.language} className="space-y-2 p-4">
          <h3 className="font-medium">{snippet.language}</h3>
          <p className="text-sm text-slate-600">{snippet.needs}</p>
          <CodeBlock label={`${title}: ${snippet.language}`}>{snippet.code}</CodeBlock>
        </Card>
      ))}
    </section>
  );
}

export function EventCatalogue() {
  return (
    <div className="space-y-8">
      <nav aria-label="Event types" className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
        {EVENT_CATALOGUE.map((entry) => (
          <a key={entry.type} href={`#${entry.type}`} className="font-mono underline">
            {entry.type}
          </a>
        ))}
        <a href="#signature" className="underline">
          Check a signature
        </a>
        <a href="#stream" className="underline">
          Check a saved stream
        </a>
      </nav>
      <section aria-labelledby="messages" className="space-y-3">
        <h2 id="messages" className="text-lg font-semibold">
          Messages
        </h2>
        {EVENT_CATALOGUE.map((entry) => (
          <Card key={entry.type} className="space-y-2 p-4" data-testid="event-type">
            <h3 id={entry.type} className="scroll-mt-20 font-mono font-semibold">
              {entry.type}
            </h3>
            <p className="text-sm">{entry.when}</p>
            <p className="text-sm text-slate-600">
              Sent with <code>webhook-id: {entry.id}</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code>.
            </p>
            <CodeBlock label={`${entry.type}: an example`}>{json(entry.example)}</CodeBlock>
            <details>
              <summary className="cursor-pointer text-sm underline">Its schema (JSON Schema)</summary>
              <CodeBlock label={`${entry.type}: its schema`}>{json(z.toJSONSchema(entry.body, { unrepresentable: 'any' }))}</CodeBlock>
            </details>
          </Card>
        ))}
      </section>
      <section aria-labelledby="stream-frames" className="space-y-3">
        <h2 id="stream-frames" className="text-lg font-semibold">
          The same events as a stream
        </h2>
        <p className="max-w-3xl text-sm">
          <code>GET /api/v1/events</code> with <code>Accept: text/event-stream</code> sends each event as <code>id</code>,{' '}
          <code>event</code> and <code>data</code> (the message’s <code>data</code> above); a comment every 15 s says the stream is alive
          and when the portal last polled. Resume with <code>Last-Event-ID</code>.
        </p>
        <CodeBlock label="The stream: an example">{EXAMPLE_STREAM}</CodeBlock>
      </section>
      <Snippets id="signature" title="Check a webhook’s signature" snippets={SIGNATURE_SNIPPETS} />
      <Snippets id="stream" title="Check a saved stream" snippets={STREAM_SNIPPETS} />
    </div>
  );
}
