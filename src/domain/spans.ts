/**
 * Price spans: the history model. A span is one price tuple at one scope (a store, or a chain
 * nationally) from the day it was first observed to the last day it was observed; an observation
 * equal to the open span extends it, any change opens a new span.
 *
 * The ingest worker merges in SQL, set-based (workers/ingest/ingest.ts). The functions here are the
 * pure reference of the same rules, used by unit tests and to check the SQL against: `mergeDay`
 * here is the reference merge of one day. The open-span end rule (the day of record) has its one
 * TypeScript home here ({@link spanTo}), and so has the rule for "current" ({@link isCurrentSpan});
 * their SQL home is src/services/span-sql.ts.
 */
import { addDays } from './days.js';
import { medianCents, modeOf } from './median.js';

/**
 * The PromoKind codes (api-spec PromoKind) by name: the one home of the numbers 1 to 4. TypeScript
 * compares with these, and SQL interpolates them (`promo_kind = ${PROMO_KIND.multibuy}`), so no SQL
 * text holds a bare promo-kind number (test/unit/promo-kind-sql.test.ts guards it).
 * - `special` (1): a promotional price for everyone;
 * - `member` (2): a member/club price (the chain's loyalty card);
 * - `multibuy` (3): `multibuy_qty` units for `multibuy_price` cents in total;
 * - `clearance` (4): a store-local markdown of short-dated stock.
 */
export const PROMO_KIND = { special: 1, member: 2, multibuy: 3, clearance: 4 } as const;

/** PromoKind (api-spec): 1 special, 2 member/club price, 3 multibuy, 4 clearance ({@link PROMO_KIND}). */
export type PromoKind = (typeof PROMO_KIND)[keyof typeof PROMO_KIND];

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

/**
 * A span as stored: `last_day` null means open. An open span's end (`to`, its last observed day) is
 * {@link spanTo}: the latest of its `first_day`, its `seen_day` and its scope's covered day.
 */
export interface Span extends PriceTuple {
  first_day: string;
  last_day: string | null;
  /**
   * The last day a partial collection (one store of many, a failed page, a search sample) saw this
   * open span unchanged; null when none did. Complete collections do not write it: they move the
   * scope's covered day instead ({@link ScopeDays}).
   */
  seen_day?: string | null;
}

/**
 * How a collection treats listings it does not mention, and whether it covers its scopes.
 * A collection that *covers* a scope saw every listing the scope lists that day, so every span it
 * leaves open was observed that day (the scope's covered day moves to it, one write for the whole
 * scope: unchanged prices stay free). A partial one observed only what it mentions.
 */
export type CollectionMode =
  /** The rows are the scope's complete observation that day: an unmentioned open span is closed. */
  | 'snapshot'
  /**
   * The rows are only changes (a price-change log) of a scope the log covers in full: unmentioned
   * open spans carry forward and count as observed unchanged that day.
   */
  | 'changes'
  /**
   * The rows are what a partial collection saw (some stores or departments, a failed page, a
   * search sample): only the mentioned listings were observed; unmentioned open spans are neither
   * closed nor observed.
   */
  | 'partial';

/** The collection modes, for validating a mode given as text. */
export const COLLECTION_MODES: readonly CollectionMode[] = ['snapshot', 'changes', 'partial'];

/**
 * The contract's staleness cap, in days (api-spec "Staleness of basket listing": a listing priced
 * more than 14 days ago does not count). A price is *current* while its last observed day is within
 * this many days of its scope's latest collection ({@link isCurrentSpan}); the index carries an
 * item's last price this long (src/domain/price-index.ts STALE_DAYS is this constant).
 */
export const CAP_DAYS = 14;

/** A scope's days (a store, or a chain nationally). */
export interface ScopeDays {
  /** The scope's latest collection day of any kind (append-only: a new day must be after it). */
  lastDay: string | null;
  /** The last day a collection covered the scope in full (see {@link CollectionMode}). */
  coveredDay: string | null;
}

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

/** Options of {@link mergeDay}. */
export interface MergeOptions {
  /** Default 'snapshot'. */
  mode?: CollectionMode;
  /**
   * The days between the scope's last collection and `day` are unknown (no collection covers
   * them): every open span is closed at its last observed day whatever `day` observes, and an
   * observation equal to the old price opens a new span, so no span claims the unknown days.
   */
  afterGap?: boolean;
  /**
   * Whether this collection covers the scope in full (default: `mode` is not 'partial'). A chain's
   * national scope built from store rows is covered only when every active store was collected
   * completely (the ingest decides; workers/ingest/ingest.ts).
   */
  covers?: boolean;
}

/**
 * Merges one collection day into the spans of one scope (a store, or a chain nationally), in place,
 * and moves the scope's days (`scope.lastDay` to `day`; `scope.coveredDay` to `day` when the
 * collection covers the scope). `spans` maps a listing key to its spans, oldest first. Mirrors the
 * SQL merge of workers/ingest/ingest.ts (test/integration/ingest.test.ts checks them equal).
 *
 * A span is closed (changed price; in a covering snapshot, not observed; after a gap, every one) at
 * its own last observed day ({@link spanTo}), never at a day it was not observed. An open span a
 * partial collection observes unchanged gets `seen_day` = `day`. A span that a collection of its
 * scope since its last observation did not see (a partial one: its `to` is before
 * `scope.lastDay`) is *interrupted*: observed again it is closed and a new span opens today (as a
 * listing that comes back after a snapshot missed it), and a covering change log closes it; so no
 * span ever stretches over days already merged without it, and days once computed keep their
 * inputs.
 * @throws RangeError when `day` is not after `scope.lastDay` (history is append-only).
 */
export function mergeDay(
  spans: Map<string, Span[]>,
  scope: ScopeDays,
  day: string,
  observations: Map<string, PriceTuple>,
  opts: MergeOptions = {},
): void {
  const mode = opts.mode ?? 'snapshot';
  const covers = opts.covers ?? mode !== 'partial';
  const afterGap = opts.afterGap === true;
  if (scope.lastDay !== null && day <= scope.lastDay) throw new RangeError(`day ${day} is not after ${scope.lastDay}`);
  for (const [key, list] of spans) {
    const open = list[list.length - 1];
    if (!open || open.last_day !== null) continue;
    const obs = observations.get(key);
    const to = spanTo(open, scope.coveredDay);
    // Interrupted: a later collection of the scope (a partial one) did not see it, so the days
    // since its last observation are unknown for it: it is never extended over them.
    const interrupted = scope.lastDay !== null && to < scope.lastDay;
    const close = afterGap || (obs
      ? interrupted || !samePrice(open, obs)
      : (mode === 'snapshot' && covers) || (mode === 'changes' && covers && interrupted));
    if (close) open.last_day = to;
    else if (obs && !covers) open.seen_day = day;
  }
  for (const [key, obs] of observations) {
    const list = spans.get(key) ?? [];
    const open = list[list.length - 1];
    if (open && open.last_day === null) continue; // equal observation: the open span extends
    list.push({ ...obs, first_day: day, last_day: null, seen_day: null });
    spans.set(key, list);
  }
  scope.lastDay = day;
  if (covers) scope.coveredDay = day;
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
  const multi = promo.filter((s) => s.promo_kind === PROMO_KIND.multibuy);
  return {
    price,
    promo_price: medianCents(promo.map((s) => s.promo_price as number)),
    promo_kind,
    multibuy_qty: promo_kind === PROMO_KIND.multibuy ? modeOf(multi.map((s) => s.multibuy_qty as number)) : null,
    multibuy_price: promo_kind === PROMO_KIND.multibuy ? medianCents(multi.map((s) => s.multibuy_price as number)) : null,
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
 * The open-span end rule, in its one TypeScript home (the day of record): a span's `to`, the last
 * day it was observed, is its `last_day`; while it is open (`last_day` null) the latest of its
 * `first_day`, its `seen_day` (a partial collection saw it) and `scopeCoveredDay` (the last day a
 * complete collection covered its scope: `store.covered_day` for a store span,
 * `retailer.covered_day` for a national span). Never a day nothing observed it.
 *
 * The SQL form is `spanToSql` in src/services/span-sql.ts; test/integration/rules-agree.test.ts
 * checks the two agree on the same rows.
 */
export function spanTo(span: Pick<Span, 'first_day' | 'last_day' | 'seen_day'>, scopeCoveredDay: string | null): string {
  if (span.last_day !== null) return span.last_day;
  let to = span.first_day;
  if (span.seen_day != null && span.seen_day > to) to = span.seen_day;
  if (scopeCoveredDay !== null && scopeCoveredDay > to) to = scopeCoveredDay;
  return to;
}

/**
 * Whether a span is *current* (the one rule for "current", "now" and "latest" offers): it is open
 * and was observed ({@link spanTo}) within {@link CAP_DAYS} days of its scope's latest collection
 * day `scopeLastDay` (`store.last_day`, or `retailer.last_national_day` nationally). So a
 * collection of one store makes current only what it saw; what it did not see stops being current
 * 14 days after it was last observed. SQL form: `currentSpanSql` in src/services/span-sql.ts.
 */
export function isCurrentSpan(
  span: Pick<Span, 'first_day' | 'last_day' | 'seen_day'>, scopeCoveredDay: string | null, scopeLastDay: string | null,
): boolean {
  if (span.last_day !== null) return false;
  if (scopeLastDay === null) return true;
  return spanTo(span, scopeCoveredDay) >= addDays(scopeLastDay, -CAP_DAYS);
}

/**
 * Turns spans of one scope (oldest first) into History columns; each span's `to` is {@link spanTo}
 * with `scopeCoveredDay`, the covered day of its store or chain.
 */
export function historyColumns(spans: readonly Span[], scopeCoveredDay: string | null): HistoryColumns {
  const h: HistoryColumns = { from: [], to: [], price: [], promo: [], kind: [], multibuy_qty: [], multibuy_price: [] };
  for (const s of spans) {
    h.from.push(s.first_day);
    h.to.push(spanTo(s, scopeCoveredDay));
    h.price.push(s.price);
    h.promo.push(s.promo_price);
    h.kind.push(s.promo_kind);
    h.multibuy_qty.push(s.multibuy_qty);
    h.multibuy_price.push(s.multibuy_price);
  }
  return h;
}
