import type { TokenView } from '@/lib/tokens/view';
import { UtcTime } from '@/components/utc-time';

/** A token's secrets in use: the one it has and, after a roll, the one it was rolled from until its overlap ends; each with its last use. */
export function SecretsInUse({
  token,
  lastUse,
}: {
  token: Pick<TokenView, 'prefix' | 'previous'>;
  lastUse: Record<string, string | null>;
}) {
  const used = (prefix: string) => {
    const at = lastUse[prefix];
    return at ? (
      <>
        last used <UtcTime iso={at} />
      </>
    ) : (
      'not used in the last 7 days'
    );
  };
  return (
    <ul className="space-y-1">
      <li data-secret="current">
        <code className="font-mono">{token.prefix}…</code> (current), {used(token.prefix)}
      </li>
      {token.previous && (
        <li data-secret="previous">
          <code className="font-mono">{token.previous.prefix}…</code> (rolled from, works until <UtcTime iso={token.previous.until} />
          ), {used(token.previous.prefix)}
        </li>
      )}
    </ul>
  );
}
