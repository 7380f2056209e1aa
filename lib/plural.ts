/** "1 record", "2 records", "1,234 records": a count and its noun, in English, grouped by thousands. */
export function plural(count: number, noun: string, many = `${noun}s`): string {
  return `${count.toLocaleString('en-GB')} ${count === 1 ? noun : many}`;
}
