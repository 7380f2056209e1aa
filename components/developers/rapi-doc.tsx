'use client';

import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { Theme } from '@/lib/theme';

/**
 * RapiDoc's reference (a web component, in its own shadow root so the portal's styles and its own stay apart) over a
 * document the portal serves, coloured from the portal's palette in light and dark. It is loaded in the browser only
 * (it draws with the DOM), with its fonts off (the portal's CSP allows no font from elsewhere) and its own saving of
 * credentials off: a token set with `bearer` lives in the element's memory and is sent only to this portal.
 */

interface RapiDocElement extends HTMLElement {
  setApiKey(securitySchemeId: string, value: string): boolean;
  removeAllSecurityKeys(): void;
}

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'rapi-doc': React.HTMLAttributes<HTMLElement> & {
        ref?: React.Ref<RapiDocElement>;
        theme?: string;
        layout?: string;
        [attribute: `${string}-${string}`]: string | undefined;
      };
    }
  }
}

const PALETTE = {
  light: { 'bg-color': '#ffffff', 'text-color': '#0f172a', 'primary-color': '#1d4ed8', 'header-color': '#ffffff' },
  dark: { 'bg-color': '#0f172a', 'text-color': '#e2e8f0', 'primary-color': '#93c5fd', 'header-color': '#0f172a' },
} as const;

const DARK = '(prefers-color-scheme: dark)';
const onSchemeChange = (notify: () => void) => {
  const query = window.matchMedia(DARK);
  query.addEventListener('change', notify);
  return () => query.removeEventListener('change', notify);
};

/** Light or dark as the page shows it: the person's choice, else the system's. */
function useDark(theme: Theme): boolean {
  const system = useSyncExternalStore(
    onSchemeChange,
    () => window.matchMedia(DARK).matches,
    () => false,
  );
  return theme === 'dark' || (theme === 'system' && system);
}

/** What RapiDoc is about to send, and may be changed (its before-try event's `detail.request`). */
export interface TriedRequest {
  url: string;
  headers: Headers;
  credentials?: RequestCredentials;
}

export function RapiDoc({
  specUrl,
  theme,
  bearer,
  credentials,
  beforeTry,
}: {
  specUrl: string;
  theme: Theme;
  /** The token requests show and are tried with (API v1), or null. */
  bearer: string | null;
  /** Whether tried requests carry the session cookie (the portal's API) or nothing else (API v1 refuses one). */
  credentials: 'omit' | 'same-origin';
  /** Changes a request just before it is sent (RapiDoc's before-try): where it goes and what it carries. */
  beforeTry?: (request: TriedRequest) => void;
}) {
  const [ready, setReady] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const element = useRef<RapiDocElement>(null);
  const dark = useDark(theme);

  useEffect(() => {
    let live = true;
    void import('rapidoc').then(() => live && setReady(true));
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => {
    const doc = element.current;
    if (!doc) return;
    const done = () => setLoaded(true);
    doc.addEventListener('spec-loaded', done);
    return () => doc.removeEventListener('spec-loaded', done);
  }, [ready]);

  useEffect(() => {
    const doc = element.current;
    if (!doc) return;
    const change = (event: Event) => {
      const request = (event as CustomEvent<{ request: TriedRequest }>).detail.request;
      // Tried at the address this page was opened at: the documents name the portal's public URL, which a page
      // opened at another address of the same portal may not reach (its CSP allows only itself).
      const url = new URL(request.url, window.location.href);
      if (url.origin !== window.location.origin) request.url = `${window.location.origin}${url.pathname}${url.search}`;
      beforeTry?.(request);
    };
    doc.addEventListener('before-try', change);
    return () => doc.removeEventListener('before-try', change);
  }, [ready, beforeTry]);

  useEffect(() => {
    const doc = element.current;
    if (!doc || !loaded) return;
    doc.removeAllSecurityKeys();
    if (bearer) doc.setApiKey('bearer', bearer);
  }, [bearer, loaded, specUrl]);

  if (!ready) return <p className="p-4 text-sm text-slate-600">Loading the reference…</p>;
  return (
    <rapi-doc
      ref={element}
      spec-url={specUrl}
      theme={dark ? 'dark' : 'light'}
      {...PALETTE[dark ? 'dark' : 'light']}
      regular-font="ui-sans-serif, system-ui, sans-serif"
      mono-font="ui-monospace, SFMono-Regular, Menlo, monospace"
      load-fonts="false"
      render-style="view"
      layout="column"
      show-header="false"
      allow-spec-url-load="false"
      allow-spec-file-load="false"
      allow-server-selection="false"
      allow-authentication="false"
      persist-auth="false"
      update-route="false"
      fill-request-fields-with-example="false"
      fetch-credentials={credentials}
      style={{ display: 'block', minHeight: '24rem' }}
    />
  );
}
