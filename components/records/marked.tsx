import type { ReactNode } from 'react';

/**
 * Text with the search's words marked (<mark>) where they appear, as search found them: case and accents folded,
 * parts of words. Each character is folded alone, so what is marked is exactly the characters that matched.
 */

const ASCII = /^[\x20-\x7e]*$/;

const fold = (c: string) => {
  const folded = c
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  return folded.length === 1 ? folded : c.toLowerCase().slice(0, 1) || c;
};

export function Marked({ text, words }: { text: string | null; words: readonly string[] }): ReactNode {
  if (!text || words.length === 0) return text;
  // Plain ASCII (most names) folds as a whole; other text character by character, each folded alone.
  const chars = ASCII.test(text) ? null : [...text];
  const size = chars ? chars.length : text.length;
  const folded = chars ? chars.map(fold).join('') : text.toLowerCase();
  const marked = new Array<boolean>(size).fill(false);
  for (const word of words) {
    if (!word) continue;
    const length = [...word].length;
    for (let at = folded.indexOf(word); at >= 0; at = folded.indexOf(word, at + 1)) marked.fill(true, at, at + length);
  }
  if (!marked.includes(true)) return text;
  const parts: ReactNode[] = [];
  for (let i = 0; i < size;) {
    let j = i;
    while (j < size && marked[j] === marked[i]) j += 1;
    const piece = chars ? chars.slice(i, j).join('') : text.slice(i, j);
    parts.push(marked[i] ? <mark key={i}>{piece}</mark> : piece);
    i = j;
  }
  return <>{parts}</>;
}
