import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { metrics, observeJob, observeRequest, observeStore } from '@/lib/metrics';

/**
 * What /metrics serves passes Prometheus's own checker (`promtool check metrics`, from Debian's `prometheus`
 * package, which .ci/run installs): operators run it in their pipelines, and a name it rejects (a gauge
 * called like a counter) fails them.
 */

describe('the metrics', () => {
  it('pass promtool check metrics with no problem reported', async () => {
    observeRequest('/picks', 'GET', 200, 0.12);
    observeStore(3, false);
    observeJob('changes.poll', 'ok', 40);
    const text = await metrics().registry.metrics();
    expect(text).toContain('portal_http_requests_total');
    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    if (promtool.error) {
      if (process.env.CI) throw new Error(`promtool is not installed: ${promtool.error.message}`);
      console.warn('SKIPPED: promtool is not installed here (Debian: apt-get install prometheus)');
      return;
    }
    expect(`${promtool.stdout}${promtool.stderr}`.trim()).toBe('');
    expect(promtool.status).toBe(0);
  });
});
