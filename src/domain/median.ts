/**
 * Medians of prices in cents. The national price of a listing is the median of its shelf price
 * across the chain's stores that report it that day (api-spec "Global conventions": National price).
 */

/**
 * Median of integer cents, rounded to a whole cent: for an even count the mean of the two middle
 * values, halves rounded up (399 and 400 → 400). Equals PostgreSQL's
 * `round(percentile_cont(0.5) WITHIN GROUP (ORDER BY x)::numeric)` used by the ingest merge.
 * @throws RangeError on an empty list.
 */
export function medianCents(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid] : Math.round((s[mid - 1] + s[mid]) / 2);
}

/**
 * Most frequent value; ties go to the smallest (as PostgreSQL's `mode() WITHIN GROUP (ORDER BY x)`).
 * @throws RangeError on an empty list.
 */
export function modeOf(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('mode of no values');
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = Infinity;
  let bestN = 0;
  for (const [v, n] of counts) if (n > bestN || (n === bestN && v < best)) [best, bestN] = [v, n];
  return best;
}
