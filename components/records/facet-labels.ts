/**
 * Facets in a filter's options, as Datasette shows them: each choice with how many records of the current set it
 * holds (`Football (1,204)`), "Any" with them all. Without counts (not counted in time) the options are the values.
 */

const said = (n: number) => n.toLocaleString('en-GB');

export function counted(
  values: readonly string[],
  counts: Record<string, number> | undefined,
): (string | { value: string; label: string })[] {
  if (!counts) return [...values];
  return values.map((value) => ({ value, label: `${value} (${said(counts[value] ?? 0)})` }));
}

export function countedAny(label: string, counts: Record<string, number> | undefined): string {
  return counts ? `${label} (${said(Object.values(counts).reduce((sum, n) => sum + n, 0))})` : label;
}
