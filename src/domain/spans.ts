/**
 * Price spans: the history model. A span is one price tuple at one scope (a store, or a chain
 * nationally) from the day it was first observed to the last day it was observed; an observation
 * equal to the open span extends it, any change opens a new span.
 *
 * The ingest worker merges in SQL, set-based (workers/ingest/ingest.ts). The functions here are the
 * pure reference of the same rules, used by unit tests and to check the SQL against: `mergeDay`
 * here is the reference merge of one day. The open-span end rule has its one TypeScript home here
 * ({@link spanTo}); its SQL home is src/services/span-sql.ts.
 */
import { medianCents, modeOf } from './median.js';

/** PromoKind (api-spec): 1 special, 2 member/club price, 3 multibuy, 4 clearance. */
export type PromoKind = 1 | 2 | 3 | 4;

/** What one observation says about a price. All money in integer NZ cents. */
export interface PriceTuple {
  /** Shelf price, cents. */
  price: number;
  /** Single-unit promotional price, cents; null when no promotion applies. */
  promo_price: number | null;
  promo_kind: PromoKind | null;
  /** Units required for `multibuy_price` (promo_kind 3 only). */
  multibuy_qty: number | null;
  /** Total price for `multibuy_qty` units, cents (promo_kind 3 only). */
  multibuy_price: number | null;
}

/** A span as stored: `last_day` null means open, running to its scope's last collection day. */
export interface Span extends PriceTuple {
  first_day: string;
  last_day: string | null;
}

/** How a collection treats listings it does not mention. */
export type CollectionMode =
  /** The rows are the scope's complete observation that day: an unmentioned open span is closed. */
  | 'snapshot'
  /** The rows are only changes (a price-change log): unmentioned open spans carry forward. */
  | 'changes';

/** True when two tuples are the same price in every field (null equals null). */
export function samePrice(a: PriceTuple, b: PriceTuple): boolean {
  return (
    a.price === b.price &&
    a.promo_price === b.promo_price &&
    a.promo_kind === b.promo_kind &&
    a.multibuy_qty === b.multibuy_qty &&
    a.multibuy_price === b.multibuy_price
  );
}

/**
 * Merges one collection day into the spans of one scope (a store, or a chain nationally), in place.
 * `spans` maps a listing key to its spans, oldest first; `previousDay` is the scope's last collection
 * day before `day` (the day an open span is closed at). Mirrors the SQL merge.
 *
 * `afterGap`: the days between `previousDay` and `day` are unknown (no collection covers them), so
 * every open span is closed at `previousDay` whatever `day` observes, and an observation equal to
 * the old price opens a new span: no span claims the unknown days.
 * @throws RangeError when `day` is not after `previousDay` (history is append-only).
 */
export function mergeDay(
  spans: Map<string, Span[]>,
  previousDay: string | null,
  day: string,
  observations: Map<string, PriceTuple>,
  mode: CollectionMode = 'snapshot',
  afterGap = false,
): void {
  if (previousDay !== null && day <= previousDay) throw new RangeError(`day ${day} is not after ${previousDay}`);
  for (const [key, list] of spans) {
    const open = list[list.length - 1];
    if (!open || open.last_day !== null) continue;
    const obs = observations.get(key);
    if (afterGap || (obs ? !samePrice(open, obs) : mode === 'snapshot')) open.last_day = previousDay;
  }
  for (const [key, obs] of observations) {
    const list = spans.get(key) ?? [];
    const open = list[list.length - 1];
    if (open && open.last_day === null) continue; // equal observation: the open span extends
    list.push({ ...obs, first_day: day, last_day: null });
    spans.set(key, list);
  }
}

/**
 * The national price tuple of a listing from its store observations of one day:
 * - `price`: median shelf price across reporting stores ({@link medianCents}).
 * - a promotion counts nationally when more than half of the reporting stores have one; then
 *   `promo_price` is the median promotional price among them and `promo_kind` the most common kind
 *   (ties to the lower code); for a multibuy, `multibuy_qty` is the most common quantity and
 *   `multibuy_price` the median total among the multibuy stores.
 * @throws RangeError on an empty list.
 */
export function nationalPrice(stores: readonly PriceTuple[]): PriceTuple {
  if (stores.length === 0) throw new RangeError('no store observations');
  const price = medianCents(stores.map((s) => s.price));
  const promo = stores.filter((s) => s.promo_price !== null);
  if (promo.length * 2 <= stores.length) {
    return { price, promo_price: null, promo_kind: null, multibuy_qty: null, multibuy_price: null };
  }
  const promo_kind = modeOf(promo.map((s) => s.promo_kind as number)) as PromoKind;
  const multi = promo.filter((s) => s.promo_kind === 3);
  return {
    price,
    promo_price: medianCents(promo.map((s) => s.promo_price as number)),
    promo_kind,
    multibuy_qty: promo_kind === 3 ? modeOf(multi.map((s) => s.multibuy_qty as number)) : null,
    multibuy_price: promo_kind === 3 ? medianCents(multi.map((s) => s.multibuy_price as number)) : null,
  };
}

/** History as the contract's parallel arrays (api-spec "History"). */
export interface HistoryColumns {
  from: string[];
  to: string[];
  price: number[];
  promo: (number | null)[];
  kind: (number | null)[];
  multibuy_qty: (number | null)[];
  multibuy_price: (number | null)[];
}

/**
 * The open-span end rule, in its one TypeScript home: a span's `to` (the last day it was observed)
 * is its `last_day`, or, while it is open (`last_day` null), `scopeLastDay`, its scope's last
 * collection day (the store's `last_day` for a store span, the chain's `last_national_day` for a
 * national span); a scope never collected falls back to the span's own `first_day`.
 *
 * The SQL form is `spanToSql` in src/services/span-sql.ts; test/integration/rules-agree.test.ts
 * checks the two agree on the same rows.
 */
export function spanTo(span: Pick<Span, 'first_day' | 'last_day'>, scopeLastDay: string | null): string {
  return span.last_day ?? scopeLastDay ?? span.first_day;
}

/**
 * Turns spans of one scope (oldest first) into History columns; each span's `to` is {@link spanTo}
 * with `scopeLastDay`, the last collection day of its store or chain.
 */
export function historyColumns(spans: readonly Span[], scopeLastDay: string | null): HistoryColumns {
  const h: HistoryColumns = { from: [], to: [], price: [], promo: [], kind: [], multibuy_qty: [], multibuy_price: [] };
  for (const s of spans) {
    h.from.push(s.first_day);
    h.to.push(spanTo(s, scopeLastDay));
    h.price.push(s.price);
    h.promo.push(s.promo_price);
    h.kind.push(s.promo_kind);
    h.multibuy_qty.push(s.multibuy_qty);
    h.multibuy_price.push(s.multibuy_price);
  }
  return h;
}
