import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Marked } from '@/components/records/marked';
import { foldWords } from '@/lib/store/record-index';

/** A search's words marked in the text shown, as search matched them: case and accents folded, parts of words. */
const html = (text: string, typed: string) => renderToStaticMarkup(createElement(Marked, { text, words: foldWords(typed).split(' ') }));

describe('the words a search matched, marked', () => {
  it('marks exactly the characters that matched, whatever their case and accents', () => {
    expect(html('Atlético Ñandú v Kingston City FC', 'atletico NANDU city')).toBe(
      '<mark>Atlético</mark> <mark>Ñandú</mark> v Kingston <mark>City</mark> FC',
    );
    expect(html('Zürichsee Wanderers', 'richse wand')).toBe('Zü<mark>richse</mark>e <mark>Wand</mark>erers');
    expect(html('Holloway Rovers', 'kingston')).toBe('Holloway Rovers');
    expect(html('<b>not markup</b>', 'markup')).toBe('&lt;b&gt;not <mark>markup</mark>&lt;/b&gt;');
  });
});
