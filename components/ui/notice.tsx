import type { HTMLAttributes, ReactNode } from 'react';

/**
 * The portal's notice: a tinted box that says something the reader should know before going on — a warning, a
 * failure, what was done. One look on every page (dark mode: globals.css); `role` where a screen reader must hear
 * it when it appears (status: polite, alert: at once).
 */

export type NoticeTone = 'warning' | 'danger' | 'info' | 'success';

const TONES: Record<NoticeTone, string> = {
  warning: 'border-amber-200 bg-amber-50 text-amber-900',
  danger: 'border-red-200 bg-red-50 text-red-900',
  info: 'border-slate-200 bg-slate-50 text-slate-800',
  success: 'border-green-200 bg-green-50 text-green-900',
};

/** The class of a notice of this tone, with what the place adds (spacing, text). */
export const noticeClass = (tone: NoticeTone, extra = ''): string => `rounded-lg border px-4 py-3 text-sm ${TONES[tone]} ${extra}`.trim();

type NoticeProps = {
  tone: NoticeTone;
  /** The element: a paragraph for a sentence, a div or a section for more. */
  as?: 'p' | 'div' | 'section';
  testId?: string;
  children: ReactNode;
} & Omit<HTMLAttributes<HTMLElement>, 'children'> &
  Partial<Record<`data-${string}`, string>>;

export function Notice({ tone, as: Element = 'p', testId, className, children, ...props }: NoticeProps) {
  return (
    <Element {...props} className={noticeClass(tone, className)} data-notice={tone} data-testid={testId}>
      {children}
    </Element>
  );
}
