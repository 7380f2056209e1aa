/**
 * The bare page of `npm run bench:pages`: Next's defaults. The benchmark builds it in a copy under
 * bench-results/ with the project's node_modules hard-linked in, and makes that copy Turbopack's root, so
 * the build sees nothing of the portal (inside the project tree, Turbopack would take its instrumentation.ts).
 */
export default { turbopack: { root: import.meta.dirname } };
