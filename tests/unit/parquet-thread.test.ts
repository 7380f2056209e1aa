import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { ParquetFile } from '@/lib/export/parquet';
import { ParquetOnWorker } from '@/lib/export/parquet-thread';
import type { Pick } from '@/lib/picks-api/schemas';
import { processSlot } from '@/lib/process-state';
import { waitsBounded } from '@/lib/waits';

/**
 * Parquet written on the worker thread (lib/export/parquet-thread.ts): the same bytes as written here, the row groups
 * encoded on another thread, and a writer that stops or stops answering failing its files in plain words (and
 * counted among the waits at their bound) instead of holding them, the next file on a new worker.
 */

const slot = () => processSlot<{ worker: Worker; users: number }>('parquetWriter');
const counted = () => waitsBounded().find(([name]) => name === 'worker')![1];

const record = (i: number): Pick =>
  ({
    id: `pk_${i}`,
    sport: 'Football',
    league: i % 2 ? 'Premier League' : 'Ligue 1',
    homeTeam: `Home ${i}`,
    awayTeam: 'Café "Ünited", FC',
    eventDate: new Date(Date.UTC(2026, 10, 1 + (i % 20), 15)).toISOString(),
    odds: 1.5 + i / 100,
    line: i % 3 ? 2.5 : null,
    isPlayerPick: i % 5 === 0,
    eventMetadata: { competition: 'League', stage: `Round ${i}`, extraNote: i },
    ...(i % 7 === 0 ? { beyondTheSpec: { kept: true } } : {}),
  }) as unknown as Pick;
const pages = [Array.from({ length: 200 }, (_, i) => record(i)), Array.from({ length: 150 }, (_, i) => record(200 + i))];

const concat = (parts: Uint8Array[]) => Buffer.concat(parts.map((p) => Buffer.from(p)));

// One worker for the tests in turn (starting one from source costs about 2 s), ended after them.
afterAll(async () => {
  const kept = slot().get();
  slot().set(undefined);
  await kept?.worker.terminate();
});

describe('Parquet on the worker thread', () => {
  it('writes the same bytes as the file written on this thread, page by page and row group by row group', async () => {
    const meta = { 'picks.export': { exportId: 'exp_same' } };
    const here = new ParquetFile(meta, 128);
    const mine = concat([...pages.map((p) => here.add(p)), here.finish({ 'picks.count': 350 })]);

    const there = new ParquetOnWorker(meta, { rowGroup: 128 });
    const parts: Uint8Array[] = [];
    for (const page of pages) parts.push(await there.add(page));
    expect(slot().get()?.worker.threadId).toBeGreaterThan(0); // encoded on a thread of its own
    parts.push(await there.finish({ 'picks.count': 350 }));
    expect(concat(parts).equals(mine)).toBe(true);
    expect(slot().get()?.users).toBe(0); // let go once finished
  });

  it('takes record history’s bodies as JSON Lines', async () => {
    const here = new ParquetFile({ h: 1 });
    const mine = concat([here.add(pages[0]!), here.finish()]);
    const there = new ParquetOnWorker({ h: 1 });
    const lines = Buffer.from(pages[0]!.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8');
    expect(concat([await there.addLines(lines), await there.finish()]).equals(mine)).toBe(true);
  });

  it('takes an export’s pages as JSON Lines bytes, decoded there as UTF-8', async () => {
    const here = new ParquetFile({ l: 1 });
    const mine = concat([here.add(pages[0]!), here.add([]), here.finish()]);
    const there = new ParquetOnWorker({ l: 1 });
    const lines = Buffer.from(pages[0]!.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8');
    const parts = [await there.addLines(lines), await there.addLines(new Uint8Array(0)), await there.finish()];
    expect(lines.byteLength).toBe(0); // handed over, not copied
    expect(concat(parts).equals(mine)).toBe(true);
  });

  it('writes several files at once on the one worker, each its own', async () => {
    const one = new ParquetOnWorker({ f: 1 }, { rowGroup: 100 });
    const two = new ParquetOnWorker({ f: 2 }, { rowGroup: 100 });
    const [a, b] = await Promise.all([one.add(pages[0]!), two.add(pages[1]!)]);
    expect(slot().get()?.users).toBe(2);
    const fileOne = concat([a, await one.finish()]);
    const fileTwo = concat([b, await two.finish()]);
    const alone = (page: Pick[], meta: object) => {
      const f = new ParquetFile(meta as Record<string, unknown>, 100);
      return concat([f.add(page), f.finish()]);
    };
    expect(fileOne.equals(alone(pages[0]!, { f: 1 }))).toBe(true);
    expect(fileTwo.equals(alone(pages[1]!, { f: 2 }))).toBe(true);
  });

  it('lets an abandoned file go, and refuses more of it', async () => {
    const file = new ParquetOnWorker({});
    await file.add(pages[0]!);
    expect(slot().get()?.users).toBe(1);
    file.abandon();
    expect(slot().get()?.users).toBe(0);
    await expect(file.add(pages[1]!)).rejects.toThrow('The Parquet file could not be written: it had already ended.');
  });

  it('hands pages over without waiting for each answer, and holds the walk back once 16 are unanswered', async () => {
    const warm = new ParquetOnWorker({});
    await warm.add(pages[0]!);
    await warm.finish(); // the worker is there, with nothing unanswered
    const worker = slot().get()!.worker;
    const post = worker.postMessage.bind(worker);
    const held: unknown[] = [];
    // Pages are taken but not answered for now; opening the file goes through.
    worker.postMessage = ((message: { type: string }) => void (message.type === 'lines' ? held.push(message) : post(message))) as never;
    const file = new ParquetOnWorker({ held: true });
    const parts: Uint8Array[] = [];
    for (let page = 0; page < 16; page += 1) parts.push(await file.add(pages[1]!)); // none of them waits
    let answered = false;
    const seventeenth = file.add(pages[1]!).then((bytes) => ((answered = true), bytes));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(held).toHaveLength(17);
    expect(answered).toBe(false); // the walk waits while 17 pages are unanswered
    worker.postMessage = post as never;
    for (const message of held) post(message);
    parts.push(await seventeenth, await file.finish());
    const here = new ParquetFile({ held: true });
    const mine = concat([...Array.from({ length: 17 }, () => here.add(pages[1]!)), here.finish()]);
    expect(concat(parts).equals(mine)).toBe(true); // in order, nothing lost
  });

  it('fails the files of a writer that stops, and writes the next file on a new one', async () => {
    const file = new ParquetOnWorker({});
    await file.add(pages[0]!);
    const first = slot().get()!.worker;
    await first.terminate();
    await expect(file.add(pages[1]!)).rejects.toThrow(/^The Parquet file could not be written: /);
    const next = new ParquetOnWorker({});
    const bytes = concat([await next.add(pages[0]!), await next.finish()]);
    expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
    expect(bytes.subarray(-4).toString()).toBe('PAR1');
    expect(slot().get()!.worker.threadId).not.toBe(first.threadId);
  });

  it('ends a call its writer does not answer within the bound, counted, and ends that writer', async () => {
    // A worker that never answers, in the writer's place.
    const silent = new Worker('setInterval(() => {}, 1000);', { eval: true });
    slot().set({ worker: silent, users: 0, idle: null } as never);
    const before = counted();
    const file = new ParquetOnWorker({}, { boundMs: 300 });
    const started = Date.now();
    await file.add(pages[0]!); // handed over; its failure is said by the next call
    await expect(file.finish()).rejects.toThrow('The Parquet file could not be written: its writer did not answer within 0.3 s.');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(counted()).toBeGreaterThan(before); // each call that waited out its bound
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(silent.threadId).toBe(-1); // ended
  });
});
