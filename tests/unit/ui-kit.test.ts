import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { Badge, StatusBadge } from '@/components/ui/badge';
import { DataTable } from '@/components/ui/data-table';
import { Icon } from '@/components/ui/icon';
import { House } from 'lucide-static';

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
    ['the label', 'font-medium uppercase tracking-wide', 'components/ui/field.tsx'],
    ['the secret shown once', 'shown only once', 'components/ui/secret-box.tsx'],
  ])('writes %s once, in its primitive', (_, look, primitive) => {
    const writing = files.filter((file) => readFileSync(path.join(root, file), 'utf8').includes(look));
    expect(writing).toEqual([primitive]);
  });

  it('has one size of primary button on the pages (the sign-in form alone spans its card)', () => {
    const small = files.filter((file) =>
      /<Button[^>]*(tone="primary"[^>]*size="(sm|lg)"|size="(sm|lg)"[^>]*tone="primary")/.test(readFileSync(path.join(root, file), 'utf8')),
    );
    expect(small).toEqual(['components/auth/login-form.tsx']);
    const handMade = files.filter((file) => /<button[^>]*bg-(brand|accent)/.test(readFileSync(path.join(root, file), 'utf8')));
    expect(handMade).toEqual([]);
  });

  it('is used: cards and links come from it across the pages', () => {
    const using = (name: string) => files.filter((file) => readFileSync(path.join(root, file), 'utf8').includes(name)).length;
    expect(using('cardClass(')).toBeGreaterThanOrEqual(20);
    expect(using('linkClass(')).toBeGreaterThanOrEqual(10);
  });
});

describe('the kit’s looks are checked by what the JSX uses (eslint.config.mjs)', () => {
  const lint = async (code: string, filePath = 'components/example/panel.tsx') =>
    (await new ESLint({ cwd: root }).lintText(code, { filePath: path.join(root, filePath) }))[0]!.messages
      .filter((m) => m.ruleId === 'no-restricted-syntax')
      .map((m) => `${m.line}: ${m.message.split(' (')[0]}`);

  it('refuses a hand-made heading, notice, pill and card, whatever their classes, naming the component to use', async () => {
    const made = [
      'export function Panel({ n }: { n: number }) {',
      '  return (',
      '    <section>',
      '      <h1 className="text-3xl font-bold">Deliveries</h1>',
      '      <p role="alert" className={`mt-2 rounded bg-rose-100 p-2 ${n}`}>Failed</p>',
      '      <span className="rounded-full bg-amber-100 px-2">3 late</span>',
      '      <div className="rounded-xl border p-6">{n}</div>',
      '    </section>',
      '  );',
      '}',
    ].join('\n');
    expect(await lint(made)).toEqual([
      '4: A page’s title is <PageTitle> or <PageHeader>',
      '5: A tinted box is <Notice tone=…>',
      '6: A tinted box is <Notice tone=…>',
      '7: A bordered panel is <Card> or cardClass()',
    ]);
  });

  it('lets the same page through when it uses the kit, and the kit itself write its looks', async () => {
    const kit = [
      "import { Card } from '@/components/ui/card';",
      "import { Notice } from '@/components/ui/notice';",
      "import { PageHeader } from '@/components/ui/page-header';",
      'export function Panel({ n }: { n: number }) {',
      '  return (',
      '    <section>',
      '      <PageHeader title="Deliveries" />',
      '      <Notice tone="danger" role="alert">Failed</Notice>',
      '      <Card className="p-6">{n}</Card>',
      '    </section>',
      '  );',
      '}',
    ].join('\n');
    expect(await lint(kit)).toEqual([]);
    expect(await lint(readFileSync(path.join(root, 'components/ui/notice.tsx'), 'utf8'), 'components/ui/notice.tsx')).toEqual([]);
  });

  it('gives every page its title through the kit', () => {
    const pages = files.filter((file) => file.endsWith('/page.tsx'));
    const titled = (file: string): boolean => {
      const text = readFileSync(path.join(root, file), 'utf8');
      if (/<(PageHeader|PageTitle)\b/.test(text)) return true;
      // A page that renders a shared view of app/ (the records' pages) is titled by it.
      return [...text.matchAll(/from '(\.\.?\/[^']+)'/g)].some(([, to]) => {
        const target = `${path.join(path.dirname(file), to!)}.tsx`;
        return files.includes(target) && /<(PageHeader|PageTitle)\b/.test(readFileSync(path.join(root, target), 'utf8'));
      });
    };
    expect(pages.length).toBeGreaterThan(20);
    expect(pages.filter((file) => !titled(file))).toEqual([]);
  });
});

describe('one table idiom', () => {
  it('writes no table outside DataTable, but for the records table (ADR 0009)', () => {
    const tables = files.filter((file) => /<table\b/.test(readFileSync(path.join(root, file), 'utf8')));
    expect(tables.sort()).toEqual(['components/records/records-table.tsx', 'components/ui/data-table.tsx']);
  });

  it('names rows by their header cell, captions a table, and keeps a small one tight', () => {
    type Row = { league: string; wins: number };
    const html = renderToStaticMarkup(
      createElement(DataTable<Row>, {
        testId: 'rates',
        frame: 'bare',
        size: 'small',
        caption: 'Hit rate by league',
        columns: [
          { id: 'league', header: 'League', rowHeader: true, cell: (r) => r.league },
          { id: 'wins', header: 'Wins', align: 'right', cell: (r) => r.wins },
        ],
        rows: [
          { league: 'NBA', wins: 3 },
          { league: 'NHL', wins: 7 },
        ],
        rowKey: (r) => r.league,
        rowData: (r) => ({ 'data-league': r.league }),
      }),
    );
    expect(html).toContain('<caption class="sr-only">Hit rate by league</caption>');
    expect(html).toMatch(/<table class="w-full text-xs" data-table="small" data-testid="rates">/);
    expect(html.match(/<th scope="row" data-cell="league"[^>]*>(\w+)<\/th>/g)).toHaveLength(2);
    expect(html).toMatch(
      /<tr data-league="NHL"[^>]*><th scope="row" data-cell="league"[^>]*>NHL<\/th><td data-cell="wins" class="[^"]*text-right tabular-nums[^"]*">7<\/td>/,
    );
    expect(html).not.toContain('rounded-lg border'); // bare: no card of its own
  });
});

describe('the badge', () => {
  it('is written once: no page spells out a pill', () => {
    const pills = files.filter((file) =>
      /rounded-full[^"`]*px-2(\.5)? py-0\.5|className="badge"/.test(readFileSync(path.join(root, file), 'utf8')),
    );
    expect(pills).toEqual(['components/ui/badge.tsx']);
  });

  it('carries its tone and the data a test finds it by', () => {
    const html = renderToStaticMarkup(createElement(Badge, { tone: 'danger', 'data-state': 'failing' }, 'failing (2 in a row)'));
    expect(html).toBe('<span class="badge" data-tone="danger" data-state="failing">failing (2 in a row)</span>');
    expect(renderToStaticMarkup(createElement(StatusBadge, { value: 'withdrawn' }))).toBe(
      '<span class="badge" data-v="withdrawn">withdrawn</span>',
    );
  });
});

describe('the icon', () => {
  it("draws an icon as one hidden element holding lucide's markup on one line", () => {
    const html = renderToStaticMarkup(createElement(Icon, { svg: House, className: 'size-3' }));
    expect(html).toMatch(
      /^<span aria-hidden="true" class="inline-flex shrink-0 \[&amp;&gt;svg\]:size-full size-3"><svg class="lucide lucide-house" [^\n]*<\/svg><\/span>$/,
    );
    expect(html.match(/<path d=/g)).toHaveLength(2);
  });
});
