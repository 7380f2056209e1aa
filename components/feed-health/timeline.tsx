import type { StateEntry } from '@/lib/store/feed-health';
import { formatUtc } from '@/components/utc-time';

const TONE = { healthy: 'bg-emerald-500', degraded: 'bg-amber-400', down: 'bg-red-600' } as const;

/**
 * A sport's last days as one bar: each state a stretch of colour as long as it lasted (grey: not yet
 * watched), the whole in words for assistive technology and on hover.
 */
export function HealthTimeline({ entries, from, to }: { entries: StateEntry[]; from: number; to: number }) {
  const span = to - from;
  const stretches = entries.map((entry, i) => {
    const start = Math.max(from, entry.at);
    const end = Math.min(to, entries[i + 1]?.at ?? to);
    return { ...entry, start, end };
  });
  const first = stretches[0]?.start ?? to;
  const said = stretches.map((s) => `${s.state} from ${formatUtc(new Date(s.start))}`).join(', ');
  return (
    <div
      className="flex h-3 w-40 overflow-hidden rounded-sm bg-slate-200"
      role="img"
      aria-label={said ? `The last 7 days: ${said}` : 'The last 7 days: no state recorded yet'}
      title={said || 'No state recorded yet'}
      data-testid="health-timeline"
    >
      {first > from && <span style={{ width: `${((first - from) / span) * 100}%` }} />}
      {stretches.map((s) => (
        <span key={s.at} data-state={s.state} className={TONE[s.state]} style={{ width: `${((s.end - s.start) / span) * 100}%` }} />
      ))}
    </div>
  );
}
