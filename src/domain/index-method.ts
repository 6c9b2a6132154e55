/**
 * The elementary index method of the daily food-price index (issue 30, "keep the method that wins
 * out of sample as the default, the other stays selectable"): the one place that names the methods
 * and parses them, imported by the configuration (src/env.ts `INDEX_METHOD`), the index worker
 * (workers/index/compute.ts, `npm run worker -- index --method <m>`) and the API's reader
 * (src/services/index-method.ts). Pure; no I/O.
 *
 * - `chained-jevons` (the default): each basket item's relative is a Jevons of its listings' linked
 *   relatives, chained daily (src/domain/price-index.ts). It won out of sample in
 *   `npm run validate:index` (all food 0.43 vs 0.44 pp, docs/price-index.md "Validation").
 * - `geks-jevons`: each item's relative is a real-time rolling GEKS-Jevons over a 28-day window
 *   with a window splice (src/domain/geks-index.ts, src/domain/multilateral.ts).
 *
 * Both share the matched listings, the counted prices, the 14-day cap and the fixed-weight upper
 * levels (price-index.ts `upperStep`).
 */
import { ExpectedError } from '../errors.js';

/** The method names, default first (the values of `INDEX_METHOD`, `--method` and `index_run.method`). */
export const INDEX_METHODS = ['chained-jevons', 'geks-jevons'] as const;

/** One of {@link INDEX_METHODS}. */
export type IndexMethod = (typeof INDEX_METHODS)[number];

/** The method used when none is configured: the chained Jevons (it won out of sample). */
export const DEFAULT_INDEX_METHOD: IndexMethod = 'chained-jevons';

/** Human labels of the methods, for reports (a Map: the keys are the method names only). */
export const INDEX_METHOD_LABELS: ReadonlyMap<IndexMethod, string> = new Map<IndexMethod, string>([
  ['chained-jevons', 'chained Jevons'],
  ['geks-jevons', 'GEKS-Jevons, 28-day window, window splice'],
]);

/** An index method name that is not one of {@link INDEX_METHODS} (bad `--method` or stored value). */
export class IndexMethodError extends ExpectedError {}

/** Whether `value` is exactly one of {@link INDEX_METHODS} (case-sensitive). */
export function isIndexMethod(value: unknown): value is IndexMethod {
  return typeof value === 'string' && (INDEX_METHODS as readonly string[]).includes(value);
}

/**
 * Parses a method name as typed (`--method geks-jevons`, `INDEX_METHOD=…`): surrounding blanks are
 * trimmed, the name must then be one of {@link INDEX_METHODS} exactly.
 * @param source where the value came from, named in the error (e.g. `--method`).
 * @throws IndexMethodError naming the value and the accepted names.
 */
export function parseIndexMethod(value: string, source = 'index method'): IndexMethod {
  const v = value.trim();
  if (isIndexMethod(v)) return v;
  throw new IndexMethodError(`${source}: unknown index method "${value}" (expected one of: ${INDEX_METHODS.join(', ')})`);
}
