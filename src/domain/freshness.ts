/**
 * How old the data is (issue 26, "Say how old every fact is"): the rules of the data status
 * (src/services/data-status.ts, GET /api/v1/status). Pure; days are New Zealand calendar days.
 *
 * A chain is **stale** when its last collection day is more than {@link STALE_AFTER_DAYS} days
 * before today, or it has never been collected: a daily collector that missed two days in a row
 * is late. The contract's own cap on how long a price stays usable is much longer (14 days,
 * src/domain/price-index.ts STALE_DAYS): a stale chain still has prices, only old ones.
 */

/** A chain not collected for more than this many days (today − its last collection day) is flagged stale. */
export const STALE_AFTER_DAYS = 2;

/**
 * Whether a chain is stale: never collected (`daysSince` null) or last collected more than
 * {@link STALE_AFTER_DAYS} days ago.
 * @param daysSince today − the chain's last collection day, in days; null when never collected
 */
export function isStale(daysSince: number | null): boolean {
  return daysSince === null || daysSince > STALE_AFTER_DAYS;
}

/**
 * Whether the data as a whole is fresh: at least one chain has been collected and every chain that
 * has been collected at all was collected within {@link STALE_AFTER_DAYS} days. Chains never
 * collected do not count against it (a chain the service has no collector for yet).
 * @param daysSince per chain, today − its last collection day in days (null: never collected)
 */
export function isFresh(daysSince: readonly (number | null)[]): boolean {
  const collected = daysSince.filter((d): d is number => d !== null);
  return collected.length > 0 && collected.every((d) => !isStale(d));
}
