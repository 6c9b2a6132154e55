/**
 * Multilateral price indices for an elementary aggregate: **GEKS-Jevons** over a window of periods,
 * extended period by period with a rolling window and a **splice** (issue 30, item 1). Pure
 * functions, no I/O; the alternative to the chained Jevons of src/domain/price-index.ts.
 *
 * Input: a {@link PricePanel}, ordered periods (days, months: any ordered keys) × items → price,
 * where an item may be missing in any period (items enter and leave: churn). Nothing here weights
 * items: every matched item counts equally, as in the Jevons (no quantities or expenditures).
 *
 * Definitions (every function restates the one it applies):
 *
 * - **Bilateral Jevons** J(s,t) ({@link bilateralJevons}): the geometric mean of p_i(t)/p_i(s) over
 *   the items priced in both s and t (a matched sample). Undefined (null) when no item is priced in
 *   both. J(t,t) = 1 and J(t,s) = 1/J(s,t) (time reversal).
 * - **GEKS-Jevons** over a window W of T periods ({@link geksJevons}): between s and t of W,
 *   GEKS(s,t) = [ Π_{k ∈ W} J(s,k) · J(k,t) ]^(1/T), the geometric mean over every period k of the
 *   window of the indirect comparisons through k. It is transitive within the window,
 *   GEKS(s,t) = GEKS(s,u) · GEKS(u,t), so free of chain drift inside it; on a panel where every item
 *   is priced in every period the bilateral Jevons is already transitive and GEKS-Jevons equals it.
 *   A link k with J(s,k) or J(k,t) undefined is left out and the mean is taken over the links left
 *   (null when none is left). Transitivity is exact only when every pair of the window has a
 *   matched item.
 * - **Rolling window with splicing** ({@link rollingGeksJevons}): the first window (periods 0…w−1)
 *   is computed once and gives the series' first w values (base 1 at period 0). Each later period T
 *   gets a new window T−w+1…T; it overlaps the previous window (T−w…T−1) in the w−1 periods
 *   k = T−w+1…T−1, and the new window's movement from k to T is spliced onto the series:
 *   - on the **published** series (as the ONS does): I(T) = I(k) · GEKS_new(k,T);
 *   - on the **revised** series (the previous window's own values; the default of the R packages
 *     IndexNumR and gpindex, `published = FALSE`):
 *     I(T) = I(T−1) · GEKS_new(k,T) / GEKS_old(k,T−1).
 *   with the splice period k chosen by the splice:
 *   - **movement** splice: k = T−1 (the last period-on-period movement of the new window; both
 *     forms coincide);
 *   - **window** splice: k = T−w+1 (the first period of the new window: its whole span);
 *   - **mean** splice: the geometric mean of the spliced values over every k = T−w+1…T−1.
 *   Published values are never revised. A splice period whose factor is undefined is left out of
 *   the mean; a period with no defined factor is null.
 *
 * Sources:
 * - [EUR-MM] Eurostat (2022), *Guide on multilateral methods in the Harmonised Index of Consumer
 *   Prices*, 2022 edition (Eurostat manuals and guidelines; announced e.g. at
 *   https://cdeuv.es/documentos/menuestadisticas/item/23849-guia-sobre-metodos-multilaterales-en-el-indice-armonizado-de-precios-de-consumo-edicion-2022.html):
 *   guidance on implementing multilateral methods for scanner data in the HICP — the methods, the
 *   window and how a window is extended (splicing).
 * - [ONS-2020] ONS, *New index number methods in consumer price statistics* (1 September 2020),
 *   https://www.ons.gov.uk/economy/inflationandpriceindices/articles/newindexnumbermethodsinconsumerpricestatistics/2020-09-01 :
 *   multilateral indices are more accurate than fixed-base or chained bilateral ones for scraped
 *   data; "in the absence of expenditure information, we propose the GEKS-Jevons as a suitable
 *   alternative" (Annex A: technical descriptions of the index number methods).
 * - [ONS-2022] ONS, *Introducing multilateral index methods into consumer price statistics*
 *   (November 2022),
 *   https://www.ons.gov.uk/economy/inflationandpriceindices/methodologies/introducingmultilateralindexmethodsintoconsumerpricestatistics :
 *   GEKS-Törnqvist, a 25-month window and a mean splice **on the published series**.
 * - [KRS-2016] Krsinich, F. (2016), "The FEWS index: fixed effects with a window splice", *Journal
 *   of Official Statistics* 32(2), 375–404 (Stats NZ; the window splice on the revised series).
 * - [CHE-2019] Chessa, A. G. (2019), "A comparison of index extension methods for multilateral
 *   methods", 16th Ottawa Group meeting, Rio de Janeiro: movement, window, half and mean splices,
 *   and splicing on published indices.
 * - [IDF-2011] Ivancic, L., Diewert, W. E., Fox, K. J. (2011), "Scanner data, time aggregation and
 *   the construction of price indexes", *Journal of Econometrics* 161(1), 24–35: GEKS over a
 *   rolling window to remove chain drift.
 * - Implementations read for the splice conventions (not code copied): R packages IndexNumR
 *   (`GEKSIndex`, splices "window", "movement", "mean"; https://rdrr.io/cran/IndexNumR/src/R/splices.R)
 *   and gpindex `splice_index` ("splicing on multiple points combines the results with a geometric
 *   mean"; `published` switch; https://rdrr.io/cran/gpindex/man/splice_index.html).
 */

/**
 * Prices of items in ordered periods: `prices[t]` maps item → price (> 0) in `periods[t]`; an
 * absent item was not priced. Items are keyed by any value compared with `Map` equality (item
 * codes, listing ids).
 */
export interface PricePanel<K = string> {
  /** Ordered period keys (days `YYYY-MM-DD`, months `YYYY-MM`, …); only their order matters. */
  periods: readonly string[];
  /** One map per period, aligned with `periods`. */
  prices: readonly ReadonlyMap<K, number>[];
}

/** How a new window is spliced onto the series ({@link rollingGeksJevons}). */
export type Splice = 'movement' | 'window' | 'mean';

/** Splice onto the published (never revised) series, or onto the previous window's values. */
export type SpliceOn = 'published' | 'revised';

/** Options of {@link rollingGeksJevons} and {@link rollingGeksFromLogMatrix}. */
export interface RollingOptions {
  /** Window length w ≥ 2, in periods. */
  window: number;
  splice: Splice;
  /** Default `published`. */
  on?: SpliceOn;
  /** Grow the first window from period 0 so that no value uses a later period. Default false. */
  realTime?: boolean;
  /**
   * Publish every period (default false): a period whose value is undefined (no defined splice
   * candidate, e.g. no item priced) **publishes the previous period's value** (carried forward, as
   * a statistical office carries an unavailable price), and later splices onto the published
   * series use that value; and the **window** splice, when the window's first period gives no
   * defined candidate, splices on the earliest overlap period that does (after a spell with no
   * prices longer than the window, the series resumes from the first priced period instead of
   * staying flat until that period is the window's first). On a panel with a defined candidate in
   * every period it changes nothing. Values before the first defined one stay null.
   */
  carry?: boolean;
}

function checkPrice(item: unknown, p: number): void {
  if (!(p > 0) || !Number.isFinite(p)) throw new RangeError(`price of ${item} must be positive and finite: ${p}`);
}

/**
 * Natural log of the bilateral Jevons index from `a` to `b`: the mean of ln(p_b / p_a) over the
 * items priced in both; null when no item is (an empty overlap).
 * @throws RangeError on a non-positive or non-finite price of a matched item.
 */
export function logBilateralJevons<K>(a: ReadonlyMap<K, number>, b: ReadonlyMap<K, number>): number | null {
  let s = 0;
  let n = 0;
  const [small, large, sign] = a.size <= b.size ? [a, b, 1] : [b, a, -1];
  for (const [item, p] of small) {
    const q = large.get(item);
    if (q === undefined) continue;
    checkPrice(item, p);
    checkPrice(item, q);
    s += sign * Math.log(q / p);
    n++;
  }
  return n ? s / n : null;
}

/**
 * Bilateral Jevons index from prices `a` to prices `b`: J = (Π_{i ∈ M} p_i(b) / p_i(a))^(1/|M|), the
 * geometric mean of the price relatives of the matched items M (priced in both) — the Jevons
 * elementary index ([EUR-MM]; ILO et al. CPI Manual 2020 ch. 8, cited in price-index.ts).
 * Returns **null** when M is empty (no comparison is possible), never 1.
 */
export function bilateralJevons<K>(a: ReadonlyMap<K, number>, b: ReadonlyMap<K, number>): number | null {
  const l = logBilateralJevons(a, b);
  return l == null ? null : Math.exp(l);
}

/**
 * Log bilateral Jevons between every pair of periods of the panel from `lo` to `hi` inclusive
 * (defaults: the whole panel): `m[s − lo][t − lo]` = ln J(s,t), null for an empty overlap. Computed
 * once per pair (J(t,s) = −J(s,t) in logs, the diagonal is 0).
 *
 * `maxLag` (periods, default: no limit) computes only the pairs at most that far apart and leaves
 * the others **null, not computed**: a rolling window of w periods ({@link rollingGeksFromLogMatrix})
 * reads only pairs at most w − 1 apart, so `maxLag = w − 1` gives it the same values for a fraction
 * of the work (the index worker's long daily panels).
 * @throws RangeError on a malformed panel or a non-positive price.
 */
export function logJevonsMatrix<K>(panel: PricePanel<K>, lo = 0, hi = panel.periods.length - 1, maxLag = Infinity): (number | null)[][] {
  checkPanel(panel);
  const n = hi - lo + 1;
  const m: (number | null)[][] = Array.from({ length: n }, () => new Array<number | null>(n).fill(null));
  for (let s = 0; s < n; s++) {
    m[s][s] = panel.prices[lo + s].size ? 0 : null;
    for (let t = s + 1; t < n && t - s <= maxLag; t++) {
      const l = logBilateralJevons(panel.prices[lo + s], panel.prices[lo + t]);
      m[s][t] = l;
      m[t][s] = l == null ? null : -l;
    }
  }
  return m;
}

function checkPanel<K>(panel: PricePanel<K>): void {
  if (panel.periods.length !== panel.prices.length) throw new RangeError(`panel has ${panel.periods.length} periods but ${panel.prices.length} price maps`);
}

/**
 * ln GEKS(s,t) inside the window [lo, hi] of a log-Jevons matrix `m` of absolute indices:
 * (1/|K|) Σ_{k ∈ K} (ln J(s,k) + ln J(k,t)), K = periods k of the window with both links defined.
 * Null when K is empty.
 */
export function logGeksPair(m: readonly (readonly (number | null)[])[], lo: number, hi: number, s: number, t: number): number | null {
  let sum = 0;
  let n = 0;
  for (let k = lo; k <= hi; k++) {
    const a = m[s][k];
    const b = m[k][t];
    if (a == null || b == null) continue;
    sum += a + b;
    n++;
  }
  return n ? sum / n : null;
}

/**
 * GEKS-Jevons over the whole panel taken as one window of T periods ([ONS-2020] Annex A, [IDF-2011],
 * [EUR-MM]): value t = GEKS(0,t) = [Π_{k=0}^{T−1} J(0,k) · J(k,t)]^(1/T), so 1 at period 0. Links
 * through a period k with an empty overlap (J(0,k) or J(k,t) null) are left out; null when no link
 * is left (e.g. period 0 has no price).
 * @throws RangeError on an empty panel or a non-positive price.
 */
export function geksJevons<K>(panel: PricePanel<K>): (number | null)[] {
  checkPanel(panel);
  const T = panel.periods.length;
  if (T === 0) throw new RangeError('GEKS over no periods');
  const m = logJevonsMatrix(panel);
  return Array.from({ length: T }, (_, t) => {
    const l = logGeksPair(m, 0, T - 1, 0, t);
    return l == null ? null : Math.exp(l);
  });
}

/**
 * Rolling-window GEKS-Jevons with splicing ([EUR-MM] index extension; [CHE-2019]; [KRS-2016];
 * [ONS-2022] uses the mean splice on published series). Periods 0…w−1: GEKS(0,t) over the first
 * window (1 at period 0). Each later period T: window T−w+1…T, overlap k = T−w+1…T−1 with the
 * previous window, and
 *
 * - `on: 'published'` (default): candidate_k = I(k) · GEKS_new(k,T);
 * - `on: 'revised'`: candidate_k = I(T−1) · GEKS_new(k,T) / GEKS_old(k,T−1);
 *
 * I(T) = candidate_{T−1} (movement), candidate_{T−w+1} (window), or the geometric mean of the
 * candidates over every k (mean). Undefined candidates (a null I(k), or a GEKS with no link) are
 * left out of the mean; I(T) is null when the splice has no defined candidate. A panel shorter than
 * the window is one window (plain {@link geksJevons}).
 *
 * `realTime: true` changes only the first w−1 periods, so that no value uses a later period (a
 * nowcast published day by day, never revised): the window **grows** from period 0 until it has
 * w periods — period T < w uses the window 0…T and the same splice over the overlap k = 0…T−1
 * (the window splice is then GEKS_{0…T}(0,T), the movement splice I(T−1) · GEKS_{0…T}(T−1,T)).
 * Without it, the first w values all come from the first full window, which looks up to w−1
 * periods ahead (the usual start of a rolling-window series, [EUR-MM]).
 *
 * `carry: true` publishes every period: an undefined value carries the previous one forward and
 * the window splice falls back to the earliest overlap period with a defined candidate
 * ({@link RollingOptions.carry}); the index worker's GEKS-Jevons items use it.
 *
 * @param window w ≥ 2 periods.
 * @throws RangeError on w < 2, an empty panel or a non-positive price.
 */
export function rollingGeksJevons<K>(panel: PricePanel<K>, opts: RollingOptions): (number | null)[] {
  checkPanel(panel);
  if (panel.periods.length === 0) throw new RangeError('GEKS over no periods');
  return rollingGeksFromLogMatrix(logJevonsMatrix(panel), opts);
}

/**
 * {@link rollingGeksJevons} from a precomputed {@link logJevonsMatrix} of the whole panel (to try
 * several windows and splices on one panel without recomputing the bilateral indices).
 * @throws RangeError on w < 2 or an empty matrix.
 */
export function rollingGeksFromLogMatrix(m: readonly (readonly (number | null)[])[], opts: RollingOptions): (number | null)[] {
  const { window: w, splice, on = 'published', realTime = false, carry = false } = opts;
  if (!Number.isInteger(w) || w < 2) throw new RangeError(`window must be an integer ≥ 2: ${w}`);
  const T = m.length;
  if (T === 0) throw new RangeError('GEKS over no periods');
  const out: (number | null)[] = new Array(T).fill(null);
  let from: number;
  if (realTime) {
    out[0] = m[0][0] == null ? null : 0;
    from = 1;
  } else {
    const first = Math.min(w, T) - 1;
    for (let t = 0; t <= first; t++) {
      out[t] = logGeksPair(m, 0, first, 0, t);
      if (carry && out[t] == null && t > 0) out[t] = out[t - 1];
    }
    from = w;
  }
  for (let t = from; t < T; t++) {
    const lo = Math.max(0, t - w + 1);
    // With `carry`, the window splice tries the overlap periods in order and keeps the first defined candidate.
    const ks = splice === 'movement' ? [t - 1] : splice === 'window' && !carry ? [lo] : Array.from({ length: t - lo }, (_, j) => lo + j);
    let sum = 0;
    let n = 0;
    for (const k of ks) {
      if (splice === 'window' && n > 0) break;
      const fresh = logGeksPair(m, lo, t, k, t);
      if (fresh == null) continue;
      let c: number;
      if (on === 'published' || k === t - 1) {
        const base = out[k];
        if (base == null) continue;
        c = base + fresh;
      } else {
        const prev = out[t - 1];
        const old = logGeksPair(m, Math.max(0, t - w), t - 1, k, t - 1);
        if (prev == null || old == null) continue;
        c = prev + fresh - old;
      }
      sum += c;
      n++;
    }
    out[t] = n ? sum / n : carry ? out[t - 1] : null;
  }
  return out.map((l) => (l == null ? null : Math.exp(l)));
}

/**
 * Chained bilateral Jevons (for comparison): I(0) = 1, I(t) = I(t−1) · J(t−1,t) over the items
 * priced in both t−1 and t; a period with an empty overlap carries the level (J taken as 1) — the
 * index that drifts when items churn or prices bounce with changing samples ([IDF-2011]).
 */
export function chainedJevons<K>(panel: PricePanel<K>): number[] {
  checkPanel(panel);
  const out: number[] = [];
  let l = 0;
  for (let t = 0; t < panel.periods.length; t++) {
    if (t > 0) l += logBilateralJevons(panel.prices[t - 1], panel.prices[t]) ?? 0;
    out.push(Math.exp(l));
  }
  return out;
}
