'use client';

import { ChevronDown } from 'lucide-static';
import { Icon } from '@/components/ui/icon';
import { useEffect, useId, useRef, useState } from 'react';
import { SignOutButton } from '@/components/auth/sign-out-button';
import { ThemeSwitch } from '@/components/theme-switch';
import { TimeZoneSwitch } from '@/components/time-zone-switch';
import { Badge } from '@/components/ui/badge';
import { useEscape } from '@/components/ui/use-escape';
import type { Theme } from '@/lib/theme';
import type { Role } from '@/lib/vocabulary/roles';
import { panelClass } from '@/components/ui/popover';

/**
 * Who is signed in, and what is theirs to set: the person and their role, the time zone and theme every
 * page uses, and signing out, behind one button in the header. Escape or a click elsewhere closes it.
 * The panel's contents are drawn when it is first opened, then kept: on most pages nobody opens it, and
 * the time zone list alone is about 400 options the browser would otherwise build on every page.
 */
export function AccountMenu({ email, role, theme }: { email: string; role: Role; theme: Theme }) {
  const [open, setOpen] = useState(false);
  const [drawn, setDrawn] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();

  useEscape(open, () => {
    setOpen(false);
    button.current?.focus();
  });
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    return () => document.removeEventListener('pointerdown', onPointer);
  }, [open]);

  return (
    <div ref={root} className="relative">
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => {
          setDrawn(true);
          setOpen(!open);
        }}
        className="flex max-w-72 items-center gap-2 rounded-md px-2 py-1 text-sm text-slate-700 hover:bg-slate-100"
      >
        <span
          aria-hidden
          className="grid size-7 shrink-0 place-items-center rounded-full bg-brand-50 text-xs font-semibold uppercase text-brand-700"
        >
          {email.slice(0, 1)}
        </span>
        <span className="sr-only">Account: </span>
        <span className="hidden min-w-0 truncate md:inline">{email}</span>
        <span className="sr-only md:hidden">{email}</span>
        <Icon svg={ChevronDown} className="size-4 text-slate-500" />
      </button>
      <div id={panelId} hidden={!open} className={panelClass('right-0 z-40 w-72 space-y-3 p-4')}>
        {drawn && (
          <>
            <div className="space-y-1">
              <p className="break-all font-medium text-slate-900" data-testid="account-email">
                {email}
              </p>
              <p className="flex items-center gap-2 text-slate-600">
                Role <Badge tone="brand">{role}</Badge>
              </p>
            </div>
            <div className="grid grid-cols-[5.5rem_minmax(0,1fr)] items-center gap-2 text-slate-600">
              <span aria-hidden>Time zone</span>
              <TimeZoneSwitch />
              <span aria-hidden>Theme</span>
              <ThemeSwitch initial={theme} />
            </div>
            <div className="border-t border-slate-200 pt-3">
              <SignOutButton />
            </div>
          </>
        )}
      </div>
    </div>
  );
}
