/**
 * The cheapest place for a whole shopping list (issue 16 item 7, "beyond the contract";
 * plan_shopping_list). Pure: the service (src/services/shopping-list.ts) reads each store's current
 * prices of the list's listings from the store_listing view and hands them here. Money in integer
 * NZ cents throughout.
 *
 * **The list.** Items are products (`p<id>`: bought as any of the product's linked listings) or
 * listings (`l<id>`: only that listing), each with a quantity of 1 to {@link MAX_QTY} ({@link
 * parseShoppingItems}). A weighable listing is priced per kg, so its quantity counts kilograms.
 *
 * **A line at a store** ({@link lineCost}): q units of a listing cost the cheapest of
 * - the shelf price × q;
 * - a special (promo_kind 1, everyone): promo price × q;
 * - a club price (promo_kind 2), only for a member: promo price × q;
 * - a multibuy (promo_kind 3, multibuy_qty units for multibuy_price): ⌊q ÷ multibuy_qty⌋ ×
 *   multibuy_price + (q mod multibuy_qty) × shelf price.
 * The kinds are those of src/domain/deals.ts (`dealKind`); a clearance (4) is a store-local
 * markdown of short-dated stock and does not count, nor does a promotion whose price is not
 * positive. A promotion is only named when it is strictly cheaper than the shelf price. A product
 * line is bought at a store as the linked listing whose line costs least there (then the lower
 * listing id); an item priced nowhere at the store is *missing* there.
 *
 * **One store** ({@link planShoppingList} `single`): every store pricing at least one item, ranked
 * by fewest missing items, then lowest total (of the items it prices), then nearest (when a
 * location was given), then store id.
 *
 * **Two stores** (`split`): for every pair of those stores, each item is bought where its line is
 * cheaper (on a tie, at the better-ranked store of the two); an item priced at neither is missing.
 * A split is listed only when it beats both of its stores alone (fewer missing items, or as many
 * and a lower total). Ranked by fewest missing, then lowest total, then (with a location) the
 * smaller distance to the farther of its two stores, then the smaller sum of both distances, then
 * the two store ids (lower first). Its `saving` is what it saves over the better-ranked of its two
 * stores alone on the items that store prices (Σ that store's cost − the split's cost over them;
 * ≥ 0). Every pair is tried: O(stores² × items).
 */
import { dealKind, type DealKind, type PromoFields } from './deals.js';
import { MAX_INT, MAX_PLAN_ITEMS, PLAN_QTY } from './limits.js';
import { ExpectedError } from '../errors.js';
/** Most distinct items in one list (src/domain/limits.ts MAX_PLAN_ITEMS). */
export const MAX_ITEMS = MAX_PLAN_ITEMS;
/** Largest quantity of one item, after adding repeats (src/domain/limits.ts PLAN_QTY.max). */
export const MAX_QTY = PLAN_QTY.max;
/** Largest id an item may name: a 32-bit database id (src/domain/limits.ts MAX_INT). */
export const MAX_ITEM_ID = MAX_INT;


/** A refused shopping list (the message says what and where; the service answers 400). */
export class ShoppingListError extends ExpectedError {}

/** One item of a list: a product or a listing, and how many. */
export interface ShoppingItem {
  kind: 'product' | 'listing';
  /** Product or listing id (1 to {@link MAX_ITEM_ID}). */
  id: number;
  /** Units (kg for a weighable listing), 1 to {@link MAX_QTY}. */
  qty: number;
}

/** The canonical reference of an item: `p<id>` for a product, `l<id>` for a listing. */
export function itemRef(item: Pick<ShoppingItem, 'kind' | 'id'>): string {
  return `${item.kind === 'product' ? 'p' : 'l'}${item.id}`;
}

const TOKEN = /^([pl])([1-9][0-9]*)(?:x([1-9][0-9]*))?$/i;

/**
 * The items of `text`: comma-separated tokens `p<productId>` or `l<listingId>`, each optionally
 * followed by `x<qty>` (default 1), e.g. `p12x2,l345,p77`; case-insensitive, spaces around tokens
 * and empty tokens ignored. Repeats of one item are merged ({@link mergeItems}), in first-seen order.
 * @throws ShoppingListError for a malformed token, an id beyond {@link MAX_ITEM_ID}, a quantity
 *   outside 1..{@link MAX_QTY} (also after adding repeats), no item, or more than {@link MAX_ITEMS}
 *   distinct items.
 */
export function parseShoppingItems(text: string): ShoppingItem[] {
  const items: ShoppingItem[] = [];
  for (const raw of text.split(',')) {
    const token = raw.trim();
    if (token === '') continue;
    const m = TOKEN.exec(token);
    if (!m) {
      const shown = [...token].slice(0, 20).join('') + ([...token].length > 20 ? '…' : '');
      throw new ShoppingListError(`"${shown}" is not an item: write p<product id> or l<listing id>, optionally x<quantity> (e.g. p12x2,l345)`);
    }
    const id = Number(m[2]);
    const qty = m[3] === undefined ? 1 : Number(m[3]);
    items.push({ kind: m[1].toLowerCase() === 'p' ? 'product' : 'listing', id, qty });
  }
  return mergeItems(items);
}

/**
 * `items` with repeats of one item merged (quantities added), in first-seen order, checked.
 * @throws ShoppingListError as {@link parseShoppingItems}.
 */
export function mergeItems(items: readonly ShoppingItem[]): ShoppingItem[] {
  const merged = new Map<string, ShoppingItem>();
  for (const item of items) {
    const ref = itemRef(item);
    if (!Number.isSafeInteger(item.id) || item.id < 1 || item.id > MAX_ITEM_ID) {
      throw new ShoppingListError(`${item.kind} id ${item.id} is out of range (1 to ${MAX_ITEM_ID})`);
    }
    if (!Number.isSafeInteger(item.qty) || item.qty < 1) throw new ShoppingListError(`the quantity of ${ref} must be at least 1`);
    const seen = merged.get(ref);
    const qty = (seen?.qty ?? 0) + item.qty;
    if (qty > MAX_QTY) throw new ShoppingListError(`the quantity of ${ref} must be at most ${MAX_QTY}`);
    merged.set(ref, { kind: item.kind, id: item.id, qty });
  }
  if (merged.size === 0) throw new ShoppingListError('the list has no items');
  if (merged.size > MAX_ITEMS) throw new ShoppingListError(`the list has ${merged.size} distinct items; at most ${MAX_ITEMS}`);
  return [...merged.values()];
}

/** What a line costs at a store and which promotion makes it so. */
export interface LineCost {
  /** Total for the quantity, cents. */
  cost: number;
  /** The promotion used, or null for the shelf price. */
  promo: DealKind | null;
}

/**
 * The cost of `qty` units of a listing priced `p` at a store (module comment): the cheapest of the
 * shelf price, a special, a club price (only when `member`) and a multibuy; ties go to the shelf
 * price (no promotion named). Null when the shelf price is not a positive number.
 * @param qty a positive integer.
 */
export function lineCost(p: PromoFields, qty: number, member: boolean): LineCost | null {
  if (!(p.price > 0)) return null;
  let best: LineCost = { cost: p.price * qty, promo: null };
  const kind = dealKind(p.promo_kind);
  let cost: number | null = null;
  if ((kind === 'special' || (kind === 'member' && member)) && p.promo_price != null && p.promo_price > 0) {
    cost = p.promo_price * qty;
  } else if (kind === 'multibuy' && p.multibuy_qty != null && p.multibuy_qty > 0 && p.multibuy_price != null && p.multibuy_price > 0) {
    cost = Math.floor(qty / p.multibuy_qty) * p.multibuy_price + (qty % p.multibuy_qty) * p.price;
  }
  if (kind != null && cost != null && cost < best.cost) best = { cost, promo: kind };
  return best;
}

/** A store that may be planned at. */
export interface PlanStore {
  id: number;
  /** Distance from the shopper, km; null when no location was given. */
  distanceKm: number | null;
}

/** One store's current price of one listing that serves one item of the list. */
export interface PlanOffer extends PromoFields {
  storeId: number;
  /** Index of the item in the list. */
  item: number;
  listingId: number;
  /** First day this price has held at the store (store_listing `day`). */
  since: string;
}

/** One line of a plan: an item bought at a store. */
export interface PlanLine {
  /** Index of the item in the list. */
  item: number;
  storeId: number;
  listingId: number;
  qty: number;
  /** Shelf price of one unit, cents. */
  price: number;
  /** What `qty` units cost there, cents ({@link lineCost}). */
  cost: number;
  promo: DealKind | null;
  since: string;
}

/** The list bought at one store. */
export interface SinglePlan {
  storeId: number;
  /** Σ cost of the lines, cents. */
  total: number;
  /** Items the store does not price, as list indexes, ascending. */
  missing: number[];
  /** One line per item it prices, in list order. */
  lines: PlanLine[];
}

/** The list split over two stores. */
export interface SplitPlan {
  /** The better-ranked store alone first. */
  storeIds: [number, number];
  total: number;
  /** Cents saved over `storeIds[0]` alone on the items it prices (module comment). */
  saving: number;
  missing: number[];
  /** One line per item bought, in list order, each at its store. */
  lines: PlanLine[];
}

/** What {@link planShoppingList} decides. */
export interface ShoppingPlan {
  /** Stores pricing at least one item of the list. */
  storesConsidered: number;
  /** The best `limit` single stores, best first. */
  single: SinglePlan[];
  /** The best `limit` splits over two stores that beat both their stores alone, best first. */
  split: SplitPlan[];
}

/** Input of {@link planShoppingList}. */
export interface PlanInput {
  /** Quantities of the list's items, by item index. */
  qty: readonly number[];
  /** The stores that may be used (other stores' offers are ignored). */
  stores: readonly PlanStore[];
  offers: readonly PlanOffer[];
  /** Whether club prices count. */
  member: boolean;
  /** How many single stores and splits to return (at least 1). */
  limit: number;
}

/** Lexicographic order of (missing, total): negative when `a` is better. */
const byMissingThenTotal = (a: { missing: number; total: number }, b: { missing: number; total: number }) =>
  a.missing - b.missing || a.total - b.total;

/**
 * Plans a list (module comment): the cheapest single stores and the cheapest splits over two
 * stores, each with what is missing where.
 */
export function planShoppingList(input: PlanInput): ShoppingPlan {
  const m = input.qty.length;
  const storeIndex = new Map(input.stores.map((s, i) => [s.id, i]));
  // Best line of each item at each store.
  const best = new Map<number, (PlanLine | null)[]>();
  for (const o of input.offers) {
    if (!storeIndex.has(o.storeId) || o.item < 0 || o.item >= m) continue;
    const c = lineCost(o, input.qty[o.item], input.member);
    if (!c) continue;
    let row = best.get(o.storeId);
    if (!row) best.set(o.storeId, (row = new Array<PlanLine | null>(m).fill(null)));
    const cur = row[o.item];
    if (cur && (cur.cost < c.cost || (cur.cost === c.cost && cur.listingId < o.listingId))) continue;
    row[o.item] = {
      item: o.item, storeId: o.storeId, listingId: o.listingId, qty: input.qty[o.item], price: o.price, cost: c.cost, promo: c.promo, since: o.since,
    };
  }

  // Single stores, ranked.
  const distance = (id: number) => input.stores[storeIndex.get(id)!].distanceKm;
  const singles = [...best].map(([storeId, row]) => {
    const lines = row.filter((l): l is PlanLine => l !== null);
    return {
      storeId, row, lines,
      total: lines.reduce((s, l) => s + l.cost, 0),
      missing: row.flatMap((l, i) => (l === null ? [i] : [])),
    };
  });
  singles.sort(
    (a, b) =>
      byMissingThenTotal({ missing: a.missing.length, total: a.total }, { missing: b.missing.length, total: b.total }) ||
      (distance(a.storeId) ?? 0) - (distance(b.storeId) ?? 0) ||
      a.storeId - b.storeId,
  );

  // Splits over every pair (i < j in rank order: i is the better-ranked store alone).
  const n = singles.length;
  const cost = new Float64Array(n * m).fill(Infinity);
  singles.forEach((s, i) => s.row.forEach((l, k) => l && (cost[i * m + k] = l.cost)));
  type Candidate = { i: number; j: number; missing: number; total: number; far: number; both: number; ids: [number, number] };
  const top: Candidate[] = [];
  const splitOrder = (a: Candidate, b: Candidate) =>
    byMissingThenTotal(a, b) || a.far - b.far || a.both - b.both || a.ids[0] - b.ids[0] || a.ids[1] - b.ids[1];
  // A lower bound of what the items from k on add to a pair's total with store i:
  // Σ_{k' ≥ k} min(store i's cost, the cheapest cost anywhere), items priced nowhere counting 0.
  const cheapest = new Float64Array(m).fill(Infinity);
  for (let x = 0; x < n * m; x++) if (cost[x] < cheapest[x % m]) cheapest[x % m] = cost[x];
  const rest = new Float64Array(n * (m + 1));
  for (let i = 0; i < n; i++) {
    for (let k = m - 1; k >= 0; k--) {
      const v = Math.min(cost[i * m + k], cheapest[k]);
      rest[i * (m + 1) + k] = rest[i * (m + 1) + k + 1] + (v === Infinity ? 0 : v);
    }
  }
  const singleMissing = Int32Array.from(singles, (s) => s.missing.length);
  const singleTotal = Float64Array.from(singles, (s) => s.total);
  for (let i = 0; i < n; i++) {
    const mi = singleMissing[i];
    const ti = singleTotal[i];
    const rowI = i * m;
    const restI = i * (m + 1) + 1;
    for (let j = i + 1; j < n; j++) {
      const rowJ = j * m;
      const mj = singleMissing[j];
      const tj = singleTotal[j];
      const full = top.length === input.limit;
      const wm = full ? top[top.length - 1].missing : Infinity;
      const wt = full ? top[top.length - 1].total : Infinity;
      // Missing items and the total only grow item by item, the total by at least `rest` from here
      // on unless an item goes missing (which is worse still): stop as soon as the pair can no
      // longer beat store i, store j (lexicographically below each) or the worst split kept.
      let missing = 0;
      let total = 0;
      let k = 0;
      for (; k < m; k++) {
        const a = cost[rowI + k];
        const b = cost[rowJ + k];
        const c = a <= b ? a : b;
        if (c === Infinity) missing++;
        else total += c;
        const bound = total + rest[restI + k];
        if ((missing >= mi && (missing > mi || bound >= ti)) || (missing >= mj && (missing > mj || bound >= tj)) || (missing >= wm && (missing > wm || bound > wt))) break;
      }
      if (k < m) continue;
      const [x, y] = [singles[i].storeId, singles[j].storeId];
      const cand: Candidate = {
        i, j, missing, total,
        far: Math.max(distance(x) ?? 0, distance(y) ?? 0),
        both: (distance(x) ?? 0) + (distance(y) ?? 0),
        ids: x < y ? [x, y] : [y, x],
      };
      if (full && splitOrder(cand, top[top.length - 1]) >= 0) continue;
      let at = top.length;
      while (at > 0 && splitOrder(cand, top[at - 1]) < 0) at--;
      top.splice(at, 0, cand);
      if (top.length > input.limit) top.pop();
    }
  }

  const split: SplitPlan[] = top.map(({ i, j, total }) => {
    const lines: PlanLine[] = [];
    const missed: number[] = [];
    let saving = 0;
    for (let k = 0; k < m; k++) {
      const a = singles[i].row[k];
      const b = singles[j].row[k];
      const chosen = a && (!b || a.cost <= b.cost) ? a : b;
      if (chosen) lines.push(chosen);
      else missed.push(k);
      if (a && chosen) saving += a.cost - chosen.cost;
    }
    return { storeIds: [singles[i].storeId, singles[j].storeId], total, saving, missing: missed, lines };
  });

  return {
    storesConsidered: n,
    single: singles.slice(0, input.limit).map(({ storeId, total, missing, lines }) => ({ storeId, total, missing, lines })),
    split,
  };
}
