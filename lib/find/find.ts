import 'server-only';
import type { PortalSession } from '../auth/principal';
import { listUsers } from '../auth/users';
import { toAppError } from '../errors';
import { maskedWebhookUrl } from '../deliveries/targets';
import { deliveryViews } from '../deliveries/view';
import { licenceOrNull } from '../picks-api/portal';
import { searchRecords, searchWords } from '../records/search';
import { fromStore } from '../store';
import { latestAudit } from '../store/audit';
import { tokenWebhooks } from '../store/token-webhooks';
import { tokenViews } from '../tokens/read';
import type { TokenView } from '../tokens/view';
import { can, type Capability } from '../vocabulary/roles';
import type { FindAnswer, FindGroup, FindKind, Found } from './answers';

/**
 * The command palette's answer (components/frame/command-palette.tsx): records, deliveries, tokens, webhooks,
 * people and audit entries whose names hold the words typed, each group only for a role whose capability opens
 * it and, within it, only what this person may see on its page (an editor's own tokens and their webhooks, a
 * webhook by its origin alone). Pages and actions are matched in the browser from the navigation it already has.
 * A group that cannot be read (the upstream down for records) says so; the others still answer.
 */

type User = PortalSession['user'];
export const FIND_MAX_CHARS = 100;
const EACH = 5;

/** Does the text hold every word typed (case and accents folded)? */
const holds = (words: string[]) => (text: string) => {
  const folded = searchWords(text).join(' ');
  return words.every((word) => folded.includes(word));
};

/** One search: who asks, the words as typed and folded, and the tokens they may see (read once, for two groups). */
interface Asked {
  user: User;
  q: string;
  words: string[];
  tokens: () => Promise<TokenView[]>;
}

const GROUPS: { kind: FindKind; label: string; needs: Capability; find: (asked: Asked) => Promise<Found[]> }[] = [
  {
    kind: 'record',
    label: 'Records',
    needs: 'browse',
    find: async ({ q }) => {
      const found = await searchRecords('picks', { limit: EACH }, { q }, await licenceOrNull());
      const items = found.rows.flatMap((row) =>
        row.id
          ? [
              {
                label: row.homeTeam && row.awayTeam ? `${row.homeTeam} v ${row.awayTeam}` : (row.eventDescription ?? row.id),
                detail: [row.selection, row.marketType, row.league, row.eventDate?.slice(0, 10)].filter(Boolean).join(' · '),
                href: `/picks/${encodeURIComponent(row.id)}`,
              },
            ]
          : [],
      );
      if (found.total > items.length)
        items.push({
          label: `Every record matching “${q}”`,
          detail: `${found.total} in the index`,
          href: `/picks?q=${encodeURIComponent(q)}`,
        });
      return items;
    },
  },
  {
    kind: 'delivery',
    label: 'Deliveries',
    needs: 'deliveries',
    find: async ({ user, words }) =>
      (await deliveryViews(user.email))
        .filter((d) => holds(words)(`${d.name} ${d.kind} ${d.format}`))
        .map((d) => ({ label: d.name, detail: `${d.kind} · ${d.format} · ${d.scheduleInWords}`, href: `/deliveries/${d.id}` })),
  },
  {
    kind: 'token',
    label: 'Tokens',
    needs: 'tokens',
    find: async ({ tokens, words }) =>
      (await tokens())
        .filter((t) => holds(words)(`${t.name} ${t.prefix} ${t.owner}`))
        .map((t) => ({ label: t.name, detail: `${t.prefix}… · ${t.owner} · ${t.state}`, href: `/tokens/${t.id}` })),
  },
  {
    kind: 'webhook',
    label: 'Webhooks',
    needs: 'tokens',
    find: async ({ tokens, words }) => {
      const mine = await tokens();
      const hooks = await fromStore((db) => Promise.all(mine.map((t) => tokenWebhooks(db, t.id))));
      return mine.flatMap((token, i) =>
        hooks[i]!.map((hook) => ({ origin: maskedWebhookUrl(hook.url), hook, token }))
          .filter(({ origin, token }) => holds(words)(`${origin} ${token.name}`))
          .map(({ origin, hook, token }) => ({
            label: origin,
            detail: `of the token ${token.name} · ${hook.kinds.join(', ')}`,
            href: `/tokens/${token.id}#webhooks`,
          })),
      );
    },
  },
  {
    kind: 'person',
    label: 'People',
    needs: 'users',
    find: async ({ words }) =>
      (await listUsers())
        .filter((u) => holds(words)(`${u.email} ${u.role}`))
        .map((u) => ({
          label: u.email,
          detail: `${u.role}${u.disabled ? ' · disabled' : ''}`,
          href: `/admin/users#user-${encodeURIComponent(u.email)}`,
        })),
  },
  {
    kind: 'audit',
    label: 'Audit entries',
    needs: 'audit',
    find: async ({ q }) =>
      (await fromStore((db) => latestAudit(db, { words: q }, EACH))).map((entry) => ({
        label: `${entry.action} by ${entry.actor}`,
        detail: [entry.target, entry.at.slice(0, 19).replace('T', ' ')].filter(Boolean).join(' · '),
        href: `/admin/audit?${new URLSearchParams({ actor: entry.actor, action: entry.action, to: new Date(Date.parse(entry.at) + 1).toISOString() })}`,
      })),
  },
];

/** What this person may find by these words, each group at most a few. */
export async function findAnything(user: User, q: string): Promise<FindAnswer> {
  const words = searchWords(q);
  if (words.length === 0) return { q, groups: [] };
  const open = GROUPS.filter((group) => can(user.role, group.needs));
  let tokens: Promise<TokenView[]> | null = null;
  const asked: Asked = { user, q: q.trim(), words, tokens: () => (tokens ??= tokenViews(user)) };
  const settled = await Promise.all(
    open.map(async (group): Promise<FindGroup> => {
      try {
        const items = await group.find(asked);
        return { kind: group.kind, label: group.label, items: items.slice(0, EACH + (group.kind === 'record' ? 1 : 0)) };
      } catch (error) {
        return { kind: group.kind, label: group.label, items: [], problem: toAppError(error).message };
      }
    }),
  );
  return { q, groups: settled.filter((group) => group.items.length > 0 || group.problem) };
}
