/**
 * Pure rules about a listing's state, shared by every type that shows one (listing cards, listing
 * detail, product offers). No I/O.
 */

/** The part of a listing's latest national span these rules need. */
export interface LatestSpan {
  /** The span's `to` (`YYYY-MM-DD`, src/domain/spans.ts spanTo): its last_day, or its chain's last day when open. */
  to: string;
  /** True while the span is open. */
  open: boolean;
  /** Shelf price, cents. */
  price: number;
}

/**
 * Still on the retailer's site at the last collection: the listing is flagged available and its
 * latest national span is open (it was in the chain's latest collection).
 */
export function isAvailable(flag: boolean, latest: LatestSpan | null | undefined): boolean {
  return flag && latest?.open === true;
}

/** Last day the listing was seen: the `to` of its latest national span, else its first day. */
export function lastSeen(firstSeen: string, latest: LatestSpan | null | undefined): string {
  return latest?.to ?? firstSeen;
}

/**
 * Orders a product's offers: available first (see {@link isAvailable}), then cheapest current shelf
 * price (unpriced last), then listing id. `latest[i]` is the latest national span of `offers[i]`.
 * Returns a new array.
 */
export function orderOffers<T extends { id: number; available: boolean }>(
  offers: readonly T[],
  latest: readonly (LatestSpan | null | undefined)[],
): T[] {
  const keyed = offers.map((o, i) => ({ o, available: isAvailable(o.available, latest[i]), price: latest[i]?.price ?? null }));
  keyed.sort(
    (a, b) =>
      Number(b.available) - Number(a.available) ||
      (a.price ?? Number.POSITIVE_INFINITY) - (b.price ?? Number.POSITIVE_INFINITY) ||
      a.o.id - b.o.id,
  );
  return keyed.map((k) => k.o);
}
