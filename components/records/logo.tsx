import { initials } from '@/lib/picks-api/pick-view';

/**
 * A team or competition logo over its initials: a missing or unsafe logo shows the initials, and a logo
 * that fails to load is hidden by <AfterLoad> so they show through. Server-rendered, no JavaScript per logo.
 */
export function Logo({
  src,
  name,
  shape = 'circle',
  size,
}: {
  src: string | null;
  name: string | null;
  shape?: 'circle' | 'square';
  /** Pixels, for the few large logos; tables use the stylesheet's sizes. */
  size?: number;
}) {
  const className = shape === 'circle' ? 'logo' : 'logo logo-square';
  const style = size ? { width: size, height: size, fontSize: Math.round(size * 0.4) } : undefined;
  if (!src) {
    return (
      <span aria-hidden className={className} style={style} data-logo-placeholder="">
        {initials(name)}
      </span>
    );
  }
  return (
    <span aria-hidden className={className} style={style}>
      {initials(name)}
      {/* No referrerpolicy: the page's own Referrer-Policy (no-referrer) covers every image. */}
      {/* eslint-disable-next-line @next/next/no-img-element -- remote logos of any allowed host; next/image would proxy them */}
      <img src={src} alt="" loading="lazy" data-logo="" />
    </span>
  );
}
