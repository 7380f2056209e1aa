'use client';

import { useState, type ReactNode } from 'react';
import { FrameMarkup } from '../framed/frame-markup';

/** The floor's frame as a client component keeping what the portal's frame keeps: the menu, the folding, the account. */
export function ClientFrame({ email, children }: { email: string; children: ReactNode }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const [folded, setFolded] = useState(false);
  const [accountOpen, setAccountOpen] = useState(false);
  return (
    <FrameMarkup
      email={email}
      state={{
        menuOpen,
        folded,
        accountOpen,
        onMenu: () => setMenuOpen((open) => !open),
        onFold: () => setFolded((is) => !is),
        onAccount: () => setAccountOpen((open) => !open),
      }}
    >
      {children}
    </FrameMarkup>
  );
}
