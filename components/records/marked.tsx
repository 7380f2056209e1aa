import type { ReactNode } from 'react';

/**
 * Text with the search's words marked (<mark>) where they appear, as search found them: case and accents folded,
 * parts of words. Each character is folded alone, so what is marked is exactly the characters that matched.
 */

const fold = (c: string) => {
  const folded = c
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  return folded.length === 1 ? folded : c.toLowerCase().slice(0, 1) || c;
};

export function Marked({ text, words }: { text: string | null; words: readonly string[] }): ReactNode {
  if (!text || words.length === 0) return text;
  const chars = [...text];
  const folded = chars.map(fold).join('');
  const marked = new Array<boolean>(chars.length).fill(false);
  for (const word of words) {
    if (!word) continue;
    for (let at = folded.indexOf(word); at >= 0; at = folded.indexOf(word, at + 1)) marked.fill(true, at, at + [...word].length);
  }
  if (!marked.includes(true)) return text;
  const parts: ReactNode[] = [];
  for (let i = 0; i < chars.length;) {
    let j = i;
    while (j < chars.length && marked[j] === marked[i]) j += 1;
    const piece = chars.slice(i, j).join('');
    parts.push(marked[i] ? <mark key={i}>{piece}</mark> : piece);
    i = j;
  }
  return <>{parts}</>;
}
