/** Types of scripts/docs-layers.mjs, for tests/unit/architecture.test.ts. */
export interface Layer {
  name: string;
  says: string;
  members: string[];
}
export const LAYERS: Layer[];
export const BEGIN: string;
export const END: string;
export function layerDrawing(layers?: Layer[]): string;
export function withDrawing(doc: string): string;
