import type { ReactNode } from 'react';

/** A page's title and what the page is for, in one look on every page; `children` is the introduction. */
export function PageHeader({ title, children }: { title: ReactNode; children?: ReactNode }) {
  return (
    <div>
      <h1 className="text-2xl font-semibold">{title}</h1>
      {children ? <div className="mt-1 max-w-3xl text-sm text-slate-600">{children}</div> : null}
    </div>
  );
}
