import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** The UI kit (components/ui/): the looks that repeat are written once, in their primitive, and used everywhere. */

const root = path.resolve(import.meta.dirname, '../..');
const sources = (dir: string): string[] =>
  readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(`${dir}/${entry.name}`) : /\.tsx?$/.test(entry.name) ? [`${dir}/${entry.name}`] : [],
  );
const files = [...sources('app'), ...sources('components')];

describe('the UI kit', () => {
  it.each([
    ['the card', 'rounded-lg border border-slate-200 bg-white', 'components/ui/card.tsx'],
    ['the text link', 'text-brand-700 hover:underline', 'components/ui/text-link.tsx'],
  ])('writes %s once, in its primitive', (_, look, primitive) => {
    const writing = files.filter((file) => readFileSync(path.join(root, file), 'utf8').includes(look));
    expect(writing).toEqual([primitive]);
  });

  it('is used: cards and links come from it across the pages', () => {
    const using = (name: string) => files.filter((file) => readFileSync(path.join(root, file), 'utf8').includes(name)).length;
    expect(using('cardClass(')).toBeGreaterThanOrEqual(20);
    expect(using('linkClass(')).toBeGreaterThanOrEqual(10);
  });
});
