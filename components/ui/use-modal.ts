'use client';

import { suppressOthers } from 'aria-hidden';
import { useEffect, useRef, type RefObject } from 'react';
import { useEscape } from './use-escape';

/**
 * A drawer or a sheet over the page, held like a modal dialog while `open`: everything else on the page is
 * inert (aria-hidden's `suppressOthers`: no Tab, click or screen reader reaches it), focus moves to the
 * first control inside, Escape closes it, and once closed by the person (not by a navigation) focus goes back
 * to the control that opened it. `wideFrom` is the media query at which the panel is part of the page rather
 * than over it: reaching it closes the panel, so nothing stays inert behind a panel that no longer covers it.
 */
export function useModal({
  open,
  close,
  keep,
  opener,
  wideFrom,
  focusFirst = 'a[href], button, input, select, textarea',
}: {
  open: boolean;
  close: () => void;
  /** The panel and its backdrop: everything else is inert while open. */
  keep: RefObject<HTMLElement | null>[];
  opener: RefObject<HTMLElement | null>;
  wideFrom: string;
  /** What takes focus on opening: the first match inside the panel (the first control, unless said). */
  focusFirst?: string;
}): { closeAndReturn: () => void } {
  const returnFocus = useRef(false);
  const closeAndReturn = () => {
    returnFocus.current = true;
    close();
  };
  useEscape(open, closeAndReturn);

  // Declared before the focus effect: a closing commit lifts the inertness first, so the opener can take focus.
  useEffect(() => {
    if (!open) return;
    const nodes = keep.map((ref) => ref.current).filter((node): node is HTMLElement => node !== null);
    const undo = nodes.length ? suppressOthers(nodes) : () => undefined;
    nodes[0]?.querySelector<HTMLElement>(focusFirst)?.focus();
    const wide = window.matchMedia(wideFrom);
    const onWide = () => wide.matches && close();
    wide.addEventListener('change', onWide);
    return () => {
      wide.removeEventListener('change', onWide);
      undo();
    };
    // keep and opener are refs; close is the caller's setter
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  useEffect(() => {
    if (open || !returnFocus.current) return;
    returnFocus.current = false;
    opener.current?.focus();
  }, [open, opener]);

  return { closeAndReturn };
}
