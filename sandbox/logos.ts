/**
 * Small deterministic SVG badges for teams and competitions, served by the sandbox itself: shapes and colours
 * only. No lettering: a browser draws each SVG image in a document of its own, and text in one (a font, its
 * shaping) made logos a large part of a browser's work on a records page; the name stands beside each logo.
 */

const PALETTE = ['#1d4ed8', '#b91c1c', '#047857', '#7c3aed', '#c2410c', '#0f766e', '#be185d', '#4338ca', '#15803d', '#a16207'];

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function logoSvg(slug: string, competition: boolean): string {
  const h = hash(slug);
  const fill = PALETTE[h % PALETTE.length];
  const accent = PALETTE[(h >>> 8) % PALETTE.length];
  const shape = competition
    ? `<rect x="4" y="4" width="56" height="56" rx="12" fill="${fill}"/><circle cx="32" cy="32" r="20" fill="none" stroke="#fff" stroke-width="3" opacity=".5"/>`
    : `<path d="M32 4 L58 14 V34 C58 48 46 57 32 60 C18 57 6 48 6 34 V14 Z" fill="${fill}"/><path d="M32 4 L58 14 V24 H6 V14 Z" fill="${accent}"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">${shape}</svg>`;
}
