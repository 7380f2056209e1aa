/** "1 record", "2 records", "1,234 records": a count and its noun, in English, grouped by thousands. */
export function plural(count: number, noun: string, many = `${noun}s`): string {
  return `${count.toLocaleString('en-GB')} ${count === 1 ? noun : many}`;
}

/** "a, b, c" — or the first `most` of them "and 4 more": a list of names cut to a readable length. */
export function listOf(values: readonly string[], most: number): string {
  return values.length <= most ? values.join(', ') : `${values.slice(0, most).join(', ')} and ${values.length - most} more`;
}
