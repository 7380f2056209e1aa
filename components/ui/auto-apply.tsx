'use client';

import { useEffect, useRef } from 'react';
import { useRouter } from 'next/navigation';

/**
 * Inside a GET form: its filters apply as they change. A change waits `delayMs` for the next (a few quick choices
 * are one step), then the page moves to the form's address with them — a step of its own in the history, so Back
 * undoes it. Enter in a field, or submitting, goes at once and drops the wait. Empty fields are left out of the address.
 */
export function AutoApply({ delayMs = 400 }: { delayMs?: number }) {
  const mark = useRef<HTMLSpanElement>(null);
  const router = useRouter();
  useEffect(() => {
    const form = mark.current?.closest('form');
    if (!form) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const apply = (wait = delayMs) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const query = new URLSearchParams();
        for (const [name, value] of new FormData(form)) if (typeof value === 'string' && value.trim() !== '') query.append(name, value);
        const next = `${form.getAttribute('action') ?? window.location.pathname}?${query.toString()}`;
        if (next !== `${window.location.pathname}${window.location.search}`) router.push(next);
      }, wait);
    };
    const submitted = () => clearTimeout(timer);
    // Enter in a field applies at once (the Apply button is not shown while this runs).
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Enter' || !(event.target instanceof HTMLInputElement)) return;
      event.preventDefault();
      apply(0);
    };
    const onChange = () => apply();
    // The form says its filters apply by themselves: FilterBar hides Apply on wider screens (a phone's sheet keeps it).
    form.dataset.live = '';
    // Back and Forward: the fields say what the address says again (the page's tree may be the one kept from before).
    const restore = () => {
      clearTimeout(timer);
      const params = new URLSearchParams(window.location.search);
      for (const field of Array.from(form.elements)) {
        if (!(field instanceof HTMLInputElement || field instanceof HTMLSelectElement) || !field.name || field.type === 'hidden') continue;
        const value = params.get(field.name);
        if (value !== null) field.value = value;
        else if (field instanceof HTMLSelectElement)
          field.value =
            (Array.from(field.options).find((o) => o.value === '') ?? Array.from(field.options).find((o) => o.defaultSelected))?.value ??
            field.value;
        else field.value = '';
      }
    };
    form.addEventListener('change', onChange);
    form.addEventListener('keydown', onKey);
    form.addEventListener('submit', submitted);
    window.addEventListener('popstate', restore);
    return () => {
      clearTimeout(timer);
      delete form.dataset.live;
      form.removeEventListener('change', onChange);
      form.removeEventListener('keydown', onKey);
      form.removeEventListener('submit', submitted);
      window.removeEventListener('popstate', restore);
    };
  }, [router, delayMs]);
  return <span ref={mark} hidden />;
}
