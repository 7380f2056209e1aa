import type { FindAnswer } from '@/lib/find/answers';
import type { Destination, DestinationGroup } from './destinations';

/** What the command palette lists: pages and actions matched here, and what the finder answered (GET /api/find). */

export interface PaletteItem {
  id: string;
  group: string;
  label: string;
  detail: string;
  href: string;
}

/** Words as the palette compares them: case and accents folded. */
export const foldText = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();

const wordsOf = (q: string) =>
  foldText(q)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** The pages and actions this person has whose names hold every word typed (all of them before any is typed). */
export function localItems(groups: DestinationGroup[], actions: Destination[], q: string): PaletteItem[] {
  const words = wordsOf(q);
  const holds = (text: string) => words.every((word) => foldText(text).includes(word));
  const pages = groups.flatMap((group) =>
    group.links
      .filter((link) => holds(`${link.label} ${group.label}`))
      .map((link) => ({ id: `page:${link.href}`, group: 'Pages', label: link.label, detail: group.label, href: link.href })),
  );
  const acts = actions
    .filter((action) => holds(action.label))
    .map((action) => ({ id: `action:${action.href}`, group: 'Actions', label: action.label, detail: 'Action', href: action.href }));
  return words.length === 0 ? [...acts, ...pages] : [...pages, ...acts];
}

/** The finder's answer as palette items, each group named. */
export function foundItems(answer: FindAnswer | null): { items: PaletteItem[]; problems: string[] } {
  if (!answer) return { items: [], problems: [] };
  return {
    items: answer.groups.flatMap((group) =>
      group.items.map((item, i) => ({ id: `${group.kind}:${i}:${item.href}`, group: group.label, ...item })),
    ),
    problems: answer.groups.flatMap((group) => (group.problem ? [`${group.label}: ${group.problem}`] : [])),
  };
}
