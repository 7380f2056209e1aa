'use client';

import { Search } from 'lucide-static';
import { useRouter } from 'next/navigation';
import { useEffect, useId, useRef, useState } from 'react';
import { Icon } from '@/components/ui/icon';
import { cardClass } from '@/components/ui/card';
import type { FindAnswer } from '@/lib/find/answers';
import type { Destination, DestinationGroup } from './destinations';
import { foundItems, localItems, type PaletteItem } from './palette-items';

const ASK_AFTER_MS = 150;

/**
 * Jump anywhere: Ctrl-K or ⌘-K, or the header's Find button, opens a dialog with one box. Pages and actions of the
 * person's role are matched at once; records, deliveries, tokens, webhooks, people and audit entries come from the
 * portal's finder (GET /api/find), which answers only what this person may see. Arrows move, Enter opens, Escape
 * closes (the native dialog: the page behind is inert, focus comes back to where it was).
 */
export function CommandPalette({ groups, actions }: { groups: DestinationGroup[]; actions: Destination[] }) {
  const router = useRouter();
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const listId = useId();
  const [q, setQ] = useState('');
  const [answer, setAnswer] = useState<FindAnswer | null>(null);
  const [asking, setAsking] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [active, setActive] = useState(0);

  const open = () => {
    dialog.current?.showModal();
    input.current?.select();
  };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        if (dialog.current?.open) dialog.current.close();
        else open();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    if (q.trim() === '') return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      setAsking(true);
      fetch(`/api/find?${new URLSearchParams({ q })}`, { signal: controller.signal })
        .then(async (res) => {
          const body = (await res.json()) as FindAnswer & { error?: { message: string } };
          if (!res.ok) throw new Error(body.error?.message ?? `HTTP ${res.status}`);
          setAnswer(body);
          setProblem(null);
        })
        .catch((error: Error) => {
          if (error.name !== 'AbortError') setProblem(error.message || 'The portal could not be reached. Try again.');
        })
        .finally(() => !controller.signal.aborted && setAsking(false));
    }, ASK_AFTER_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [q]);

  const shownAnswer = q.trim() === '' || answer?.q !== q ? null : answer;
  const found = foundItems(shownAnswer);
  const items: PaletteItem[] = [...localItems(groups, actions, q), ...found.items];
  const current = Math.min(active, Math.max(0, items.length - 1));
  const go = (item: PaletteItem | undefined) => {
    if (!item) return;
    dialog.current?.close();
    setQ('');
    router.push(item.href);
  };
  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current + step + items.length) % Math.max(1, items.length));
    } else if (event.key === 'Enter') {
      event.preventDefault();
      go(items[current]);
    }
  };
  const optionId = (i: number) => `${listId}-${i}`;
  const waiting = asking || (q.trim() !== '' && shownAnswer === null && problem === null);

  return (
    <>
      <button
        type="button"
        onClick={open}
        aria-keyshortcuts="Control+K Meta+K"
        data-testid="palette-button"
        className="inline-flex items-center gap-2 rounded-md border border-slate-300 px-2.5 py-1.5 text-sm text-slate-600 hover:bg-slate-50"
      >
        <Icon svg={Search} />
        <span className="sr-only sm:not-sr-only">Find anything</span>
        <kbd className="hidden rounded border border-slate-300 px-1 font-sans text-xs text-slate-500 md:inline">Ctrl K</kbd>
      </button>
      {/* A click on the backdrop closes it; from the keyboard, Escape does (the native dialog). */}
      {/* eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-noninteractive-element-interactions */}
      <dialog
        ref={dialog}
        aria-label="Find anything"
        data-testid="palette"
        onClose={() => setActive(0)}
        onClick={(event) => event.target === dialog.current && dialog.current?.close()}
        className={cardClass('mx-auto mt-[10vh] w-[min(40rem,calc(100vw-2rem))] p-0 text-sm shadow-2xl backdrop:bg-slate-950/40')}
      >
        <div className="flex items-center gap-2 border-b border-slate-200 px-3">
          <Icon svg={Search} />
          <input
            ref={input}
            value={q}
            onChange={(event) => {
              setQ(event.target.value);
              setActive(0);
            }}
            onKeyDown={onKeyDown}
            role="combobox"
            aria-expanded
            aria-controls={listId}
            aria-activedescendant={items.length ? optionId(current) : undefined}
            aria-label="Find pages, records, deliveries, tokens, webhooks, people and audit entries"
            placeholder="Find a page, a record, a delivery, a token, a person…"
            maxLength={100}
            autoComplete="off"
            className="min-w-0 flex-1 bg-transparent py-3 outline-none"
          />
          <kbd className="rounded border border-slate-300 px-1 text-xs text-slate-500">Esc</kbd>
        </div>
        <ul id={listId} role="listbox" aria-label="Found" className="max-h-[60vh] overflow-y-auto py-1">
          {items.map((item, i) => (
            // The keyboard moves through the options from the box (aria-activedescendant); a pointer picks one here.
            // eslint-disable-next-line jsx-a11y/click-events-have-key-events
            <li
              key={item.id}
              id={optionId(i)}
              role="option"
              aria-selected={i === current}
              data-group={item.group}
              onMouseMove={() => i !== current && setActive(i)}
              onClick={() => go(item)}
              className="flex cursor-pointer items-baseline gap-3 px-3 py-1.5 aria-selected:bg-brand-50"
            >
              <span className="w-24 shrink-0 text-xs text-slate-500">
                {i === 0 || items[i - 1]!.group !== item.group ? item.group : ''}
              </span>
              <span className="min-w-0 flex-1">
                <span className="block truncate font-medium text-slate-900">{item.label}</span>
                {item.detail && <span className="block truncate text-xs text-slate-500">{item.detail}</span>}
              </span>
            </li>
          ))}
        </ul>
        <p className="border-t border-slate-200 px-3 py-2 text-xs text-slate-500" role="status" data-testid="palette-status">
          {problem
            ? problem
            : waiting
              ? 'Searching…'
              : found.problems.length > 0
                ? found.problems.join(' ')
                : q.trim() !== '' && items.length === 0
                  ? `Nothing you may open matches “${q.trim()}”.`
                  : '↑ ↓ to move, Enter to open.'}
        </p>
      </dialog>
    </>
  );
}
