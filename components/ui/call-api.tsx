'use client';

/** A call to the portal's own JSON API from a form, and its refusal shown as it came: every field's problem at once. */

export interface ApiProblem {
  message: string;
  details?: Record<string, string>;
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
    return { ok: false, problem: { message: error?.message ?? `HTTP ${res.status}`, details: error?.details } };
  } catch {
    return { ok: false, problem: { message: 'The portal could not be reached. Try again.' } };
  }
}

/** The API's refusal: its message, and each field's problem listed (the form also shows each under its field). */
export function Problem({ problem, testId = 'delivery-problem' }: { problem: ApiProblem | null; testId?: string }) {
  if (!problem) return null;
  const fields = Object.entries(problem.details ?? {});
  return (
    <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900" data-testid={testId}>
      {fields.length > 0 ? (
        <>
          <p className="font-medium">{fields.length === 1 ? 'One field needs a change:' : `${fields.length} fields need a change:`}</p>
          <ul className="mt-1 list-disc pl-5">
            {fields.map(([field, text]) => (
              <li key={field}>
                <span className="font-mono text-xs">{field}</span> {text}
              </li>
            ))}
          </ul>
        </>
      ) : (
        problem.message
      )}
    </div>
  );
}
