import canonicalize from 'canonicalize';

/** The canonical JSON bytes of a document (RFC 8785): what the portal signs, and what a checker compares. */
export function canonicalBytes(document: unknown): Buffer {
  const text = canonicalize(document);
  if (text === undefined) throw new Error('nothing to serialise');
  return Buffer.from(text, 'utf8');
}
