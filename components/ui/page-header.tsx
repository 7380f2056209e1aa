import type { ReactNode } from 'react';

/**
 * A page's title: the one h1 of a page, in one look everywhere (eslint.config.mjs refuses an h1 written anywhere
 * else). `size="card"` for the title of a page that is one card (sign-in).
 */
export function PageTitle({
  size = 'page',
  className = '',
  children,
}: {
  size?: 'page' | 'card';
  className?: string;
  children: ReactNode;
}) {
  return <h1 className={`${size === 'page' ? 'text-2xl' : 'text-lg'} font-semibold ${className}`.trim()}>{children}</h1>;
}

/** A page's title and what the page is for, in one look on every page; `children` is the introduction. */
export function PageHeader({ title, children }: { title: ReactNode; children?: ReactNode }) {
  return (
    <div>
      <PageTitle>{title}</PageTitle>
      {children ? <div className="mt-1 max-w-3xl text-sm text-slate-600">{children}</div> : null}
    </div>
  );
}
