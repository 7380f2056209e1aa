/**
 * /me is shown to every signed-in role, and its shape is undocumented: before anyone sees it, any value
 * holding the partner key, any field whose name holds the key or says secret, token, password or key, and
 * anything nested deeper than the walker goes is replaced. Upstream error messages, shown to people, get
 * the same treatment (redactText).
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

const MAX_DEPTH = 32;

/** A text with the partner key and any bearer credential in it replaced. */
export function redactText(text: string, partnerKey: string): string {
  const withoutKey = partnerKey ? text.split(partnerKey).join(REDACTED) : text;
  return withoutKey.replace(/\b(Bearer|Basic)\s+[^\s,;"'()]+/gi, `$1 ${REDACTED}`);
}

export function redactSecrets<T>(value: T, partnerKey: string, depth = 0): T {
  if (typeof value === 'string') return (partnerKey && value.includes(partnerKey) ? REDACTED : value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return REDACTED as T; // too deep to have been looked at: not shown unseen
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, partnerKey, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  let hidden = 0;
  for (const [name, item] of Object.entries(value)) {
    // A name holding the key is itself a leak: the field keeps its place under a name that says so.
    const shownName = partnerKey && name.includes(partnerKey) ? `${REDACTED}${(hidden += 1) > 1 ? ` ${hidden}` : ''}` : name;
    out[shownName] = saysSecret(name) && item !== null && item !== undefined ? REDACTED : redactSecrets(item, partnerKey, depth + 1);
  }
  return out as T;
}
