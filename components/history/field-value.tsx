/** A field's value in a history as people read it: absent and null as "—", structures as compact JSON. */
export function FieldValue({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="text-slate-500">—</span>;
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return <span className="break-all font-mono text-xs">{text}</span>;
}

export function FieldChanges({ changes }: { changes: { field: string; before: unknown; after: unknown }[] }) {
  if (changes.length === 0) return null;
  return (
    <ul className="space-y-0.5" data-testid="field-changes">
      {changes.map((change) => (
        <li key={change.field} data-field={change.field}>
          <span className="font-medium">{change.field}</span>: <FieldValue value={change.before} /> → <FieldValue value={change.after} />
        </li>
      ))}
    </ul>
  );
}
