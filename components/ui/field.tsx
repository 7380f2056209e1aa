import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from 'react';

/**
 * Labelled form controls, the same on every page: a small uppercase label above a full-width control,
 * and an optional hint below it. `compact` is for controls inside a table row (no label above, no width).
 * Each control's id defaults to `f-<name>`, so a label always points at it.
 */

/** The look of a label, a legend or a term: small capitals in a muted colour (code inside it: `normal-case`). */
export const labelClass = (extra = ''): string => `text-xs font-medium uppercase tracking-wide text-slate-600 ${extra}`.trim();
const LABEL = labelClass('block');

export function controlClass(compact = false, extra = ''): string {
  const look = compact
    ? 'rounded-md border border-slate-300 bg-white px-2 py-1 text-sm'
    : 'mt-1 block w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm shadow-sm';
  return `${look} ${extra}`.trim();
}

interface FieldProps {
  label: ReactNode;
  htmlFor: string;
  hint?: ReactNode;
  /** What is wrong with the value, said under it (the control is marked invalid and described by it). */
  error?: string;
  children: ReactNode;
}

export function Field({ label, htmlFor, hint, error, children }: FieldProps) {
  return (
    <div>
      <label htmlFor={htmlFor} className={LABEL}>
        {label}
      </label>
      {children}
      {hint ? <p className="mt-1 text-xs text-slate-500">{hint}</p> : null}
      {error ? (
        <p id={`${htmlFor}-error`} className="mt-1 text-xs text-red-700" data-field-error={htmlFor}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The attributes that tie a control to its error message. */
export const invalid = (id: string, error: string | undefined) =>
  error ? { 'aria-invalid': true, 'aria-describedby': `${id}-error` } : {};

type TextFieldProps = InputHTMLAttributes<HTMLInputElement> & { label: ReactNode; name: string; hint?: ReactNode; error?: string };

export function TextField({ label, name, hint, error, id = `f-${name}`, className = '', ...input }: TextFieldProps) {
  return (
    <Field label={label} htmlFor={id} hint={hint} error={error}>
      <input id={id} name={name} className={`${controlClass()} ${className}`.trim()} {...invalid(id, error)} {...input} />
    </Field>
  );
}

/** A file to upload: the browser's own picker, with its button in the portal's secondary look. */
export function FileField({ label, name, hint, id = `f-${name}`, ...input }: Omit<TextFieldProps, 'type' | 'error'>) {
  return (
    <Field label={label} htmlFor={id} hint={hint}>
      <input
        id={id}
        name={name}
        type="file"
        className="mt-1 block w-full text-sm text-slate-700 file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-1.5 file:text-sm file:font-medium file:text-slate-700 hover:file:bg-slate-50"
        {...input}
      />
    </Field>
  );
}

export type Choice = string | { value: string; label: string };

type SelectProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'defaultValue'> & {
  name: string;
  options: readonly Choice[];
  /** The label of an empty first choice ("Any sport"); none when absent. */
  any?: string;
  defaultValue?: string;
  /** Said after a current value that is not among the options (it still shows, so nothing is hidden). */
  unlisted?: string;
  compact?: boolean;
};

export function Select({ name, options, any, defaultValue = '', unlisted, compact = false, id = `f-${name}`, ...rest }: SelectProps) {
  const values = options.map((option) => (typeof option === 'string' ? option : option.value));
  const initial = rest.value === undefined ? { defaultValue } : {};
  return (
    <select id={id} name={name} {...initial} className={controlClass(compact)} {...rest}>
      {any !== undefined && <option value="">{any}</option>}
      {unlisted !== undefined && defaultValue !== '' && !values.includes(defaultValue) && (
        <option value={defaultValue}>
          {defaultValue}
          {unlisted}
        </option>
      )}
      {options.map((option) =>
        typeof option === 'string' ? (
          <option key={option} value={option}>
            {option}
          </option>
        ) : (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ),
      )}
    </select>
  );
}

export function SelectField({ label, hint, error, ...select }: SelectProps & { label: ReactNode; hint?: ReactNode; error?: string }) {
  const id = select.id ?? `f-${select.name}`;
  return (
    <Field label={label} htmlFor={id} hint={hint} error={error}>
      <Select {...select} {...invalid(id, error)} id={id} />
    </Field>
  );
}
