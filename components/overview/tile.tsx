import type { ReactNode } from 'react';
import { PortalLink } from '@/components/portal-link';
import { ATTENTION_CARD, cardClass } from '@/components/ui/card';
import { labelClass } from '@/components/ui/field';

/** One overview tile: what it counts, the figure, a line of detail; the whole tile leads to its page. */
export function Tile({
  id,
  href,
  label,
  value,
  detail,
  tone = 'plain',
}: {
  id: string;
  href: string;
  label: string;
  value: ReactNode;
  detail?: ReactNode;
  tone?: 'plain' | 'attention';
}) {
  return (
    <PortalLink
      href={href}
      data-testid={`tile-${id}`}
      data-tone={tone}
      className={cardClass(`block min-w-0 p-4 hover:border-brand-500 ${ATTENTION_CARD}`)}
    >
      <span className={labelClass('block')}>{label}</span>
      <span className="mt-1 block text-2xl font-semibold tabular-nums" data-value="">
        {value}
      </span>
      {detail && <span className="mt-1 block text-xs text-slate-600">{detail}</span>}
    </PortalLink>
  );
}
