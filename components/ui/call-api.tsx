'use client';

/** A call to the portal's own JSON API from a form, and its refusal shown as it came: every field's problem at once. */

export interface ApiProblem {
  message: string;
  details?: Record<string, string>;
  /** Server settings in the way (not fields): each said apart, at the top, with the document explaining it. */
  settings?: { setting: string; problem: string; doc: string }[];
}

export async function callApi(
  url: string,
  init: RequestInit = {},
): Promise<{ ok: true; body: unknown } | { ok: false; problem: ApiProblem }> {
  try {
    const res = await fetch(url, { ...init, headers: { 'Content-Type': 'application/json', ...init.headers } });
    const body: unknown = res.status === 204 ? null : await res.json();
    if (res.ok) return { ok: true, body };
    const error = (body as { error?: ApiProblem } | null)?.error;
    return {
      ok: false,
      problem: { message: error?.message ?? `HTTP ${res.status}`, details: error?.details, settings: error?.settings },
    };
  } catch {
    return { ok: false, problem: { message: 'The portal could not be reached. Try again.' } };
  }
}

/** A field of a form as its problem summary names it: its key in `details`, the label people see, the control's id. */
export type ProblemField = { key: string; label: string; id: string };

/**
 * What the portal refused, above the form's button. With `fields`, each problem is said once, beside its
 * field, and the summary only names the fields, each a link to its control; a problem of no field on the
 * form is said here, under its last name.
 */
export function Problem({
  problem,
  testId = 'delivery-problem',
  fields,
}: {
  problem: ApiProblem | null;
  testId?: string;
  /** The form's fields in the order they appear on it: the summary follows that order. */
  fields?: readonly ProblemField[];
}) {
  if (!problem) return null;
  const details = problem.details ?? {};
  const known = (fields ?? []).filter((field) => field.key in details);
  const entries = [
    ...known.map((field) => [field.key, details[field.key]!] as const),
    ...Object.entries(details).filter(([key]) => !known.some((field) => field.key === key)),
  ];
  return (
    <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900" data-testid={testId}>
      {problem.settings?.map((s) => (
        <p key={s.setting} data-setting={s.setting} className="mb-1">
          <span className="font-medium">On the server,</span> <code>{s.setting}</code> {s.problem} (see <code>{s.doc}</code>).
        </p>
      ))}
      {entries.length > 0 ? (
        <>
          <p className="font-medium">{entries.length === 1 ? 'One field needs a change:' : `${entries.length} fields need a change:`}</p>
          <ul className="mt-1 list-disc pl-5">
            {entries.map(([key, text]) => {
              const field = known.find((f) => f.key === key);
              return (
                <li key={key} data-problem={key}>
                  {field ? (
                    <a href={`#${field.id}`} className="underline">
                      {field.label}
                    </a>
                  ) : (
                    <>
                      <span className="font-medium">{key.split('.').pop()}</span> {text}
                    </>
                  )}
                </li>
              );
            })}
          </ul>
        </>
      ) : problem.settings?.length ? null : (
        problem.message
      )}
    </div>
  );
}
