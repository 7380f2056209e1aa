import { describe, expect, it } from 'vitest';
import { signal } from '@/lib/jobs/signals';

describe('signals a feature publishes for the features above it', () => {
  it('reach every listener, in order, before publish returns; a removed listener hears nothing', async () => {
    const heard: string[] = [];
    const ended = signal<{ delivery: string }>('test.ended');
    const stop = ended.listen(async ({ delivery }) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      heard.push(`first ${delivery}`);
    });
    ended.listen(({ delivery }) => void heard.push(`second ${delivery}`));
    await ended.publish({ delivery: 'Daily CSV' });
    expect(heard).toEqual(['first Daily CSV', 'second Daily CSV']);
    stop();
    await ended.publish({ delivery: 'Weekly' });
    expect(heard).toEqual(['first Daily CSV', 'second Daily CSV', 'second Weekly']);
  });

  it('fail the publish with the first error once every listener has run, as a direct call would have failed', async () => {
    const heard: string[] = [];
    const changed = signal<number>('test.changed');
    changed.listen(() => {
      throw new Error('the store refused the alert');
    });
    changed.listen((n) => void heard.push(`after ${n}`));
    await expect(changed.publish(1)).rejects.toThrow('the store refused the alert');
    expect(heard).toEqual(['after 1']);
  });

  it('are one per name in the process, however many times the module that declares one was loaded', async () => {
    const heard: number[] = [];
    signal<number>('test.shared').listen((n) => void heard.push(n));
    await signal<number>('test.shared').publish(7);
    expect(heard).toEqual([7]);
  });
});
