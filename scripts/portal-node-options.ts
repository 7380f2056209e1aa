/**
 * Node (V8) arguments of the portal's production server, shared by `npm start` and the benchmarks so
 * they measure what ships. Exports stream hundreds of MB through the process, almost all of it garbage
 * within one page; left to its defaults V8 lets that garbage pile up:
 * - semi-spaces capped at 8 MB keep the young generation small;
 * - an old generation allowed to grow 1.5× its live size before a full collection, instead of V8's up
 *   to 4×, stops pages promoted by chance from piling up for tens of seconds.
 * Why: docs/adr/0007.
 * Command-line arguments, not NODE_OPTIONS: Node refuses the second there.
 */
export const PORTAL_NODE_ARGS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];
