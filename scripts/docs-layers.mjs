#!/usr/bin/env node
// `npm run docs:layers`: draws the layers of lib/ (LAYERS in .dependency-cruiser.mjs, which the architecture check
// enforces) into docs/architecture.md, between its two markers; tests/unit/architecture.test.ts fails if the drawing there differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LAYERS } from '../.dependency-cruiser.mjs';

export { LAYERS };

export const BEGIN = '<!-- layers: drawn by npm run docs:layers from .dependency-cruiser.mjs -->';
export const END = '<!-- /layers -->';

/** The layers, highest first, each with its folders and what it holds: every import points down this drawing. */
export function layerDrawing(layers = LAYERS) {
  const wrap = (names) =>
    names.reduce((lines, name) => {
      const last = lines.at(-1);
      if (last !== undefined && `${last} ${name}`.length <= 30) lines[lines.length - 1] = `${last} ${name}`;
      else lines.push(last === undefined ? name : `  ${name}`);
      return lines;
    }, []);
  const rows = [
    [['app/ scripts/ instrumentation.ts'], 'routes, pages, commands: nothing imports them'],
    [['components/'], 'shows what app/ read; no server-only module but types'],
    [['lib/, highest first:'], 'each imports itself and the rows below it, nothing else'],
    ...layers.toReversed().map((layer) => [wrap(layer.members), `${layer.name}: ${layer.says}`]),
  ];
  const lines = rows.flatMap(([left, says]) => left.map((l, i) => (i === 0 ? `${l.padEnd(33)}${says}` : l)));
  return ['```', ...lines, '```'].join('\n');
}

export function withDrawing(doc) {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md has no ${BEGIN} … ${END} block`);
  return `${doc.slice(0, start + BEGIN.length)}\n${layerDrawing()}\n${doc.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = new URL('../docs/architecture.md', import.meta.url);
  writeFileSync(file, withDrawing(readFileSync(file, 'utf8')));
  console.log('docs/architecture.md: the layers drawn from .dependency-cruiser.mjs');
}
