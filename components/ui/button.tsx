import type { ComponentProps } from 'react';

/**
 * The portal's buttons: one look per purpose, so pages cannot drift apart. `primary` is the one action a
 * form exists for (Apply, Save, Sign in); `secondary` the others; `quiet` a way out (Clear, Cancel);
 * `danger` and `remove` what cannot be undone. Links that act as buttons take `buttonClass`.
 */

export type ButtonTone = 'primary' | 'secondary' | 'quiet' | 'danger' | 'remove';
export type ButtonSize = 'sm' | 'md' | 'lg';

const TONES: Record<ButtonTone, string> = {
  primary: 'bg-accent font-semibold text-on-accent shadow-sm hover:bg-accent-hover',
  secondary: 'border border-slate-300 bg-white font-medium text-slate-700 hover:bg-slate-50',
  quiet: 'text-slate-700 hover:bg-slate-100',
  danger: 'bg-danger font-medium text-on-accent hover:bg-danger-hover',
  remove: 'border border-slate-300 bg-white font-medium text-red-700 hover:bg-red-50',
};

const SIZES: Record<ButtonSize, string> = {
  sm: 'px-2.5 py-1 text-xs',
  md: 'px-3 py-1.5 text-sm',
  lg: 'w-full px-4 py-2',
};

export function buttonClass(tone: ButtonTone = 'secondary', size: ButtonSize = 'md', extra = ''): string {
  return `inline-flex items-center justify-center gap-1 rounded-md disabled:cursor-not-allowed disabled:opacity-50 ${TONES[tone]} ${SIZES[size]} ${extra}`.trim();
}

type ButtonProps = ComponentProps<'button'> & { tone?: ButtonTone; size?: ButtonSize };

/** A button; `type` defaults to "button", so only a button that says `type="submit"` submits its form. */
export function Button({ tone, size, className, type = 'button', ...rest }: ButtonProps) {
  return <button type={type} className={buttonClass(tone, size, className)} {...rest} />;
}
