/**
 * JSON.stringify, with < > & and the two JavaScript line separators written as \u escapes: the same
 * values to any JSON parser, but echoed input can never read as markup should a response be sniffed or
 * embedded. For JSON the portal writes that can carry what a person typed (errors, export metadata, coverage).
 */
const UNSAFE = /[<>&\u2028\u2029]/g;

export function toSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
