'use client';

import { useState } from 'react';
import { initials } from '@/lib/pick-view';

/** A team or competition logo; any missing, unsafe or broken image becomes a neat initials badge. */
export function Logo({
  src,
  name,
  size = 24,
  shape = 'circle',
}: {
  src: string | null;
  name: string | null;
  size?: number;
  shape?: 'circle' | 'square';
}) {
  const [broken, setBroken] = useState(false);
  const rounded = shape === 'circle' ? 'rounded-full' : 'rounded-md';
  if (!src || broken) {
    return (
      <span
        aria-hidden
        data-logo-placeholder=""
        className={`inline-flex shrink-0 items-center justify-center bg-slate-200 font-semibold text-slate-600 ${rounded}`}
        style={{ width: size, height: size, fontSize: Math.max(9, Math.round(size * 0.4)) }}
      >
        {initials(name)}
      </span>
    );
  }
  return (
    // eslint-disable-next-line @next/next/no-img-element -- remote logos of any host; next/image would proxy them
    <img
      src={src}
      alt=""
      width={size}
      height={size}
      loading="lazy"
      decoding="async"
      referrerPolicy="no-referrer"
      onError={() => setBroken(true)}
      className={`inline-block shrink-0 bg-white object-contain ${rounded}`}
      style={{ width: size, height: size }}
    />
  );
}
