/**
 * /me is shown to every signed-in role, and its shape is undocumented: before anyone sees it, any value
 * holding the partner key and any field whose name says secret, token, password or key is replaced.
 */

export const REDACTED = '[redacted]';

const SECRET_WORDS = new Set([
  'secret',
  'secrets',
  'token',
  'tokens',
  'password',
  'passwords',
  'passwd',
  'pwd',
  'key',
  'keys',
  'apikey',
  'credential',
  'credentials',
  'authorization',
]);

/** Words of a field name: camelCase, snake_case, kebab-case and dotted names split apart. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
}

export function saysSecret(name: string): boolean {
  return nameWords(name).some((word) => SECRET_WORDS.has(word));
}

export function redactSecrets<T>(value: T, partnerKey: string, depth = 0): T {
  if (typeof value === 'string') return (partnerKey && value.includes(partnerKey) ? REDACTED : value) as T;
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, partnerKey, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    out[name] = saysSecret(name) && item !== null && item !== undefined ? REDACTED : redactSecrets(item, partnerKey, depth + 1);
  }
  return out as T;
}
