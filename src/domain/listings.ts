/**
 * Pure rules about a listing's state, shared by every type that shows one (listing cards, listing
 * detail, product offers). No I/O.
 */

/** The part of a listing's latest national span these rules need. */
export interface LatestSpan {
  /** The span's `to` (`YYYY-MM-DD`, src/domain/spans.ts spanTo): its last observed day. */
  to: string;
  /** True while the span is open. */
  open: boolean;
  /**
   * True while the span is current (src/domain/spans.ts isCurrentSpan): open and observed within
   * the 14-day cap of its chain's latest collection.
   */
  current: boolean;
  /** Shelf price, cents. */
  price: number;
}

/**
 * Still on the retailer's site as far as the chain's latest collection knows: the listing is
 * flagged available and its latest national span is current (open, and observed within the 14-day
 * cap of the chain's latest collection day; a listing that collection did not look at for longer
 * is not claimed available).
 */
export function isAvailable(flag: boolean, latest: LatestSpan | null | undefined): boolean {
  return flag && latest?.current === true;
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
