/**
 * Validation of the daily food-price index (issue 15, item 6): the nowcast built from the real
 * Woolworths NZ price log, compared with Stats NZ's official monthly Food Price Index. No database:
 * the files are read, matched and indexed in memory with the domain code the index worker uses.
 *
 *   npm run validate:index            (DATA_DIR overrides ../shared/data)
 *
 * Inputs (../shared/data, described in its README.md):
 * - `neon-ninja--woolies/price_history.csv`: Woolworths' national price **changes**, 2024-10-14 →
 *   2025-05-03 (UTC), read by the importer's reader (workers/import/price-history.ts: NZ day, last
 *   change of the day wins, cents). A change log: each SKU's price is carried forward every day from
 *   its first logged change until the log ends. The log holds one price, the one the website
 *   showed; it cannot tell a special from a shelf-price change, so **every price is taken as the
 *   shelf price** (no promotion fields): a temporary special appears as two shelf-price changes and
 *   moves the nowcast, as specials move the official FPI (which counts them at the price seen).
 * - `neon-ninja--woolies/products.columns.tsv`: the catalogue of 2026-07-27 (names, sizes,
 *   departments, sold-by-weight), read by workers/import/catalogue.ts `readCatalogue`. It describes
 *   13,862 of the log's 19,618 SKUs, as they were in 2026 (a size or name may have changed since).
 * - `thecolab-ai--nz-cost-of-living/src/lib/fpi_monthly.csv`: official FPI index levels, June 2017 =
 *   1000: all food (CPIM.SE901) and the five groups (SE9011 fruit & veg … SE9015 restaurant meals
 *   and ready-to-eat food; order as the data README states it, not checked against Stats NZ).
 *
 * Steps: every catalogue SKU of the log is classified (src/domain/kinds.ts) and matched to at most
 * one basket item (src/domain/basket-match.ts); each matched SKU becomes one ListingDay per day
 * (shelf price; pack size from the catalogue; per kg when sold by weight); src/domain/price-index.ts
 * `computeIndex` runs over every day of the log. Monthly value = mean of the month's daily raw
 * values (also: of its first 15 days only); monthly change = value / previous month's − 1, in %;
 * errors and MAE over the complete months: src/domain/index-validation.ts `validateAggregate`, the
 * same function GET /api/v1/index/validation uses (one formula for the script and the endpoint).
 *
 * Comparison: the official all-food index includes restaurant meals and ready-to-eat food (27 % of
 * the basket), which shelves do not show; the nowcast renormalises over the four observable groups.
 * So the nowcast's all food is compared with both (a) the official all-food index and (b) an
 * "official observable" aggregate formed from the official group indices with the basket's group
 * weights renormalised over the four observable groups (the same aggregation is checked on all five
 * groups against the official total and printed).
 *
 * Baselines: **flat** (0 % every month) and **crude**: every logged SKU with a catalogue department,
 * departments mapped to FPI groups, an unweighted chained Jevons (geometric mean of day-on-day price
 * relatives) per group, groups combined with the same observable group weights.
 *
 * Multilateral alternative (issue 30; test/bench/index-multilateral.ts): each item's elementary index
 * a GEKS-Jevons over a rolling window of days with a splice (src/domain/multilateral.ts), real time
 * (no day's value uses a later day), same upper levels. The window and splice are chosen on the
 * first 3 complete months only (lowest all-food MAE against the official all-food change, the one
 * criterion fixed beforehand); the later months are reported untouched for both methods. Drift: the
 * chained index's last-day level against one GEKS window over the whole log (transitive).
 *
 * Prints progress and tables; exits 0 (a report for a human, nothing asserted).
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadBasket, observableGroupWeights, type GroupCode } from '../../src/domain/basket.js';
import { matchInputOf, matchListing } from '../../src/domain/basket-match.js';
import { addDays } from '../../src/domain/days.js';
import { changePercent, estimateMonth, INTERVAL_LEVEL, monthValues, prevMonth, validateAggregate } from '../../src/domain/index-validation.js';
import { computeIndex, type BasketItem as IndexItem, type CoveredValue, type ListingDay, type Match, type OfficialMonth } from '../../src/domain/price-index.js';
import type { Splice } from '../../src/domain/multilateral.js';
import { geksNowcast, prepareItems, type Nowcast } from './index-multilateral.js';
import { parseSize, totalQty } from '../../src/domain/sizes.js';
import { readCatalogue } from '../../workers/import/catalogue.js';
import { readPriceHistory } from '../../workers/import/price-history.js';

const DATA_DIR = process.env.DATA_DIR ?? path.resolve(import.meta.dirname, '../../../shared/data');
const LOG = path.join(DATA_DIR, 'neon-ninja--woolies', 'price_history.csv');
const CATALOGUE = path.join(DATA_DIR, 'neon-ninja--woolies', 'products.columns.tsv');
const FPI = path.join(DATA_DIR, 'thecolab-ai--nz-cost-of-living', 'src', 'lib', 'fpi_monthly.csv');

const OBSERVABLE: GroupCode[] = ['fruit_veg', 'meat_poultry_fish', 'grocery_food', 'beverages'];
const SERIES: Record<string, string> = {
  total: 'CPIM.SE901', fruit_veg: 'CPIM.SE9011', meat_poultry_fish: 'CPIM.SE9012', grocery_food: 'CPIM.SE9013', beverages: 'CPIM.SE9014', restaurant: 'CPIM.SE9015',
};
const SHORT: Record<string, string> = { all: 'all food', fruit_veg: 'fruit & veg', meat_poultry_fish: 'meat & fish', grocery_food: 'grocery', beverages: 'beverages' };
/** Catalogue departments → FPI group, for the crude baseline (non-food departments are left out). */
const DEPT_GROUP: Record<string, GroupCode> = {
  'Fruit & Veg': 'fruit_veg', 'Meat & Poultry': 'meat_poultry_fish', 'Fish & Seafood': 'meat_poultry_fish',
  Pantry: 'grocery_food', 'Fridge & Deli': 'grocery_food', Bakery: 'grocery_food', Frozen: 'grocery_food', Drinks: 'beverages',
};

const t0 = performance.now();
const log = (msg: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${msg}`);
const f2 = (x: number | null) => (x == null || !Number.isFinite(x) ? '   -  ' : (x >= 0 ? '+' : '') + x.toFixed(2));
const pad = (s: string, n: number) => s.padStart(n);

for (const f of [LOG, CATALOGUE, FPI]) {
  if (!fs.existsSync(f)) {
    console.log(`missing data file: ${f} (set DATA_DIR); nothing to validate`);
    process.exit(0);
  }
}

// ---------------------------------------------------------------------------------------------
// 1. Read the log: SKU → sorted (day, cents) changes.
log(`reading the price log ${LOG}`);
const history = await readPriceHistory(LOG);
const changes = new Map<string, { day: string; price: number }[]>();
let firstDay = '9999-12-31';
let lastDay = '0000-01-01';
for (const { record } of history.records) {
  const r = record as { day: string; external_id: string; price: number };
  let l = changes.get(r.external_id);
  if (!l) changes.set(r.external_id, (l = []));
  l.push({ day: r.day, price: r.price });
  if (r.day < firstDay) firstDay = r.day;
  if (r.day > lastDay) lastDay = r.day;
}
for (const l of changes.values()) l.sort((a, b) => (a.day < b.day ? -1 : 1));
const days: string[] = [];
for (let d = firstDay; d <= lastDay; d = addDays(d, 1)) days.push(d);
log(`log: ${history.rows} rows, ${history.skus} SKUs, ${history.records.length} SKU-days with a change, NZ days ${firstDay} → ${lastDay} (${days.length} days)`);

/** A SKU's price on every day from its first change to the log's end (carried forward), index-aligned with `days`. */
function carried(l: { day: string; price: number }[]): (number | null)[] {
  const out: (number | null)[] = new Array(days.length).fill(null);
  let j = 0;
  let cur: number | null = null;
  for (let i = 0; i < days.length; i++) {
    while (j < l.length && l[j].day <= days[i]) cur = l[j++].price;
    out[i] = cur;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// 2. Catalogue and matching.
log(`reading the catalogue ${CATALOGUE}`);
const catalogue = readCatalogue(CATALOGUE).rows;
const basket = loadBasket();
const inLog = catalogue.filter((r) => changes.has(r.sku));
log(`catalogue: ${catalogue.length} products, ${inLog.length} of them SKUs of the log (${changes.size - inLog.length} logged SKUs have no description)`);

interface Matched { sku: string; listingId: number; itemCode: string; group: GroupCode; confidence: number; qty: number | null; unit: ListingDay['unit']; weighable: boolean }
const matched: Matched[] = [];
for (const r of inLog) {
  // The worker's input builder (workers/index/match.ts uses the same one on listing rows).
  const input = matchInputOf({ name: r.name, brand: r.brand, sizeText: r.sizeText, categoryPath: r.department ? [r.department] : [], weighable: r.weighable });
  const m = matchListing(input, basket.items);
  if (!m) continue;
  const size = parseSize(r.sizeText);
  const weighable = r.weighable || (size?.perKg ?? false);
  matched.push({
    sku: r.sku, listingId: Number(r.sku), itemCode: m.item.code, group: m.item.group, confidence: m.confidence,
    qty: size && !weighable ? totalQty(size) : null, unit: size && !weighable ? size.unit : null, weighable,
  });
}
log(`matched ${matched.length} logged SKUs to basket items`);

// Matched listings per group.
const observableItems = basket.items.filter((i) => i.observable);
console.log('\nmatched listings per group (catalogue SKUs of the log)');
console.log(`  ${'group'.padEnd(13)} ${pad('listings', 8)} ${pad('items', 5)} ${pad('with ≥1', 7)} ${pad('weight cov.', 11)} ${pad('mean conf.', 10)}`);
{
  let totL = 0;
  let totI = 0;
  let totC = 0;
  for (const g of OBSERVABLE) {
    const ms = matched.filter((m) => m.group === g);
    const its = observableItems.filter((i) => i.group === g);
    const covered = new Set(ms.map((m) => m.itemCode));
    const w = its.reduce((s, i) => s + i.weight, 0);
    const wc = its.filter((i) => covered.has(i.code)).reduce((s, i) => s + i.weight, 0);
    const conf = ms.reduce((s, m) => s + m.confidence, 0) / (ms.length || 1);
    totL += ms.length;
    totI += its.length;
    totC += covered.size;
    console.log(`  ${SHORT[g].padEnd(13)} ${pad(String(ms.length), 8)} ${pad(String(its.length), 5)} ${pad(String(covered.size), 7)} ${pad(((100 * wc) / w).toFixed(1) + ' %', 11)} ${pad(conf.toFixed(3), 10)}`);
  }
  console.log(`  ${'total'.padEnd(13)} ${pad(String(totL), 8)} ${pad(String(totI), 5)} ${pad(String(totC), 7)}`);
  const unmatchedItems = observableItems.filter((i) => !matched.some((m) => m.itemCode === i.code));
  console.log(`  observable items with no matched listing (${unmatchedItems.length}): ${unmatchedItems.map((i) => i.name).join('; ') || '-'}`);
}

// ---------------------------------------------------------------------------------------------
// 3. The index over every day of the log.
const observations: ListingDay[] = [];
for (const m of matched) {
  const prices = carried(changes.get(m.sku)!);
  for (let i = 0; i < days.length; i++) {
    const p = prices[i];
    if (p == null || p <= 0) continue;
    observations.push({ listingId: m.listingId, day: days[i], price: p, promoPrice: null, promoKind: null, qty: m.qty, unit: m.unit, weighable: m.weighable });
  }
}
const indexItems: IndexItem[] = basket.items.map((i) => ({ code: i.code, group: i.group, weight: i.weight, perUnit: i.per_unit, observable: i.observable }));
const matches: Match[] = matched.map((m) => ({ listingId: m.listingId, itemCode: m.itemCode, validFrom: firstDay }));
log(`computing the index: ${observations.length} listing-days (shelf prices, carried forward daily), ${days.length} days`);
const run = computeIndex({ from: firstDay, to: lastDay, basket: indexItems, matches, observations });
log(`index computed: all food raw ${run.all.raw[0].toFixed(1)} → ${run.all.raw[run.all.raw.length - 1].toFixed(1)}`);

// ---------------------------------------------------------------------------------------------
// 4. Crude baseline: unweighted chained Jevons of every logged SKU by department, groups weighted.
const crude = new Map<GroupCode, number[]>();
{
  const byGroup = new Map<GroupCode, (number | null)[][]>();
  for (const r of inLog) {
    const g = r.department ? DEPT_GROUP[r.department] : undefined;
    if (!g) continue;
    const l = byGroup.get(g) ?? [];
    l.push(carried(changes.get(r.sku)!));
    byGroup.set(g, l);
  }
  for (const g of OBSERVABLE) {
    const series = byGroup.get(g) ?? [];
    const out = [1000];
    for (let i = 1; i < days.length; i++) {
      let s = 0;
      let n = 0;
      for (const p of series) {
        const a = p[i - 1];
        const b = p[i];
        if (a != null && b != null && a > 0 && b > 0) {
          s += Math.log(b / a);
          n++;
        }
      }
      out.push(out[i - 1] * (n ? Math.exp(s / n) : 1));
    }
    crude.set(g, out);
  }
  log(`crude baseline: ${OBSERVABLE.map((g) => `${SHORT[g]} ${(byGroup.get(g) ?? []).length} SKUs`).join(', ')}`);
}
const ow = observableGroupWeights(basket);
const crudeAll = days.map((_, i) => OBSERVABLE.reduce((s, g) => s + ow.get(g)! * crude.get(g)![i], 0));

// ---------------------------------------------------------------------------------------------
// 5. Official monthly series.
const official = new Map<string, Map<string, number>>();
for (const line of fs.readFileSync(FPI, 'utf8').trim().split('\n').slice(1)) {
  const [ref, month, value] = line.split(',');
  let m = official.get(ref);
  if (!m) official.set(ref, (m = new Map()));
  m.set(month, Number(value));
}
const offSeries = (key: string) => official.get(SERIES[key])!;
const offChange = (key: string, m: string): number | null => changePercent(offSeries(key).get(m), offSeries(key).get(prevMonth(m)));
/** An official series as monthly levels. */
const offLevels = (key: string): OfficialMonth[] => [...offSeries(key)].map(([month, value]) => ({ month, value }));
/** The official observable-groups aggregate: Σ W_g I_g / Σ W_g over `groups` with basket weights. */
const aggregate = (groups: string[], m: string): number | null => {
  let s = 0;
  let w = 0;
  for (const g of groups) {
    const v = offSeries(g).get(m);
    if (v == null) return null;
    const wg = basket.groups.find((x) => x.code === g)!.weight;
    s += wg * v;
    w += wg;
  }
  return s / w;
};
const aggChange = (groups: string[], m: string): number | null => changePercent(aggregate(groups, m), aggregate(groups, prevMonth(m)));
/** The official observable-groups aggregate as monthly levels (months where every group has one). */
const aggLevels = (groups: string[]): OfficialMonth[] =>
  [...offSeries('total').keys()].flatMap((month) => {
    const value = aggregate(groups, month);
    return value == null ? [] : [{ month, value }];
  });

// ---------------------------------------------------------------------------------------------
// 6. Monthly values and changes.
const months = [...new Set(days.map((d) => d.slice(0, 7)))];
const dayCount = (m: string, first15: boolean) => days.filter((d) => d.startsWith(m) && (!first15 || Number(d.slice(8)) <= 15)).length;
/** A daily series aligned with `days` as the domain's covered values (coverage 1 when not given: the crude baseline). */
const covered = (series: readonly number[], coverage?: readonly number[]): CoveredValue[] => series.map((value, i) => ({ day: days[i], value, coverage: coverage ? coverage[i] : 1 }));
/** Monthly means of a series aligned with `days` (src/domain/index-validation.ts monthValues). */
function monthlyMeans(series: readonly number[], first15: boolean): Map<string, number> {
  return new Map(monthValues(covered(series)).flatMap((m) => { const v = first15 ? m.first : m.mean; return v == null ? [] : [[m.month, v] as const]; }));
}
const change = (mm: Map<string, number>, m: string): number | null => changePercent(mm.get(m), mm.get(prevMonth(m)));
const compared = months.filter((m) => months.includes(prevMonth(m)) && offSeries('total').has(m));
/** Months whose own days are a full calendar month in the log (the last month is cut short). */
const complete = (m: string) => {
  const [y, mo] = m.split('-').map(Number);
  return dayCount(m, false) === new Date(Date.UTC(y, mo, 0)).getUTCDate();
};

console.log('\ncheck of the official aggregation: Σ w_g I_g / Σ w_g over all five groups (basket weights) vs the official all-food change, %');
{
  const errs: number[] = [];
  const rows = compared.map((m) => {
    const a = aggChange(['fruit_veg', 'meat_poultry_fish', 'grocery_food', 'beverages', 'restaurant'], m)!;
    const o = offChange('total', m)!;
    errs.push(Math.abs(a - o));
    return `${m} ${f2(a)} vs ${f2(o)}`;
  });
  console.log(`  ${rows.join(' | ')}`);
  console.log(`  mean absolute difference ${(errs.reduce((s, x) => s + x, 0) / errs.length).toFixed(2)} pp (rounding of the published levels and the weights' vintage)`);
}

interface Mae { label: string; nowcast: number; crude: number; flat: number; n: number }
function table(first15: boolean): Mae[] {
  const nowSeries = new Map<string, CoveredValue[]>([['all', covered(run.all.raw, run.all.coverage)]]);
  const crSeries = new Map<string, CoveredValue[]>([['all', covered(crudeAll)]]);
  for (const g of OBSERVABLE) {
    nowSeries.set(g, covered(run.groups.get(g)!.raw, run.groups.get(g)!.coverage));
    crSeries.set(g, covered(crude.get(g)!));
  }
  const title = first15 ? 'first 15 days of each month' : 'whole months';
  console.log(`\nmonthly change, % (nowcast = mean of the month's daily raw values, ${title}; official = Stats NZ FPI)`);
  console.log(`  days used: ${months.map((m) => `${m} ${dayCount(m, first15)}`).join(', ')}`);
  const cols: { key: string; label: string; off: OfficialMonth[] }[] = [
    { key: 'all', label: 'all food vs official all food', off: offLevels('total') },
    { key: 'all', label: 'all food vs official observable groups', off: aggLevels(OBSERVABLE) },
    ...OBSERVABLE.map((g) => ({ key: g, label: SHORT[g], off: offLevels(g) })),
  ];
  const out: Mae[] = [];
  for (const c of cols) {
    console.log(`\n  ${c.label}`);
    console.log(`    ${'month'.padEnd(9)} ${pad('nowcast', 8)} ${pad('official', 8)} ${pad('error', 7)} ${pad('crude', 7)} ${pad('flat', 6)}`);
    // The endpoint's function (src/domain/index-validation.ts): changes, errors, complete months, MAE.
    const v = validateAggregate(nowSeries.get(c.key)!, c.off);
    const k = validateAggregate(crSeries.get(c.key)!, c.off);
    const byMonth = new Map(v.months.map((r) => [r.month, r]));
    const crByMonth = new Map(k.months.map((r) => [r.month, r]));
    for (const m of compared) {
      const r = byMonth.get(m)!;
      const n = first15 ? r.firstDays : r.nowcast;
      const e = first15 ? r.firstDaysError : r.error;
      const kc = first15 ? crByMonth.get(m)!.firstDays : crByMonth.get(m)!.nowcast;
      console.log(`    ${(m + (r.complete ? '' : '*')).padEnd(9)} ${pad(f2(n), 8)} ${pad(f2(r.official), 8)} ${pad(f2(e), 7)} ${pad(f2(kc), 7)} ${pad(f2(0), 6)}`);
    }
    const pick = (s: typeof v.summary) => (first15 ? s.firstDays : s.nowcast) ?? 0;
    console.log(`    MAE (pp, ${v.summary.months} complete months): nowcast ${pick(v.summary).toFixed(2)}, crude ${pick(k.summary).toFixed(2)}, flat ${(v.summary.flat ?? 0).toFixed(2)}`);
    out.push({ label: c.label, nowcast: pick(v.summary), crude: pick(k.summary), flat: v.summary.flat ?? 0, n: v.summary.months });
  }
  console.log(`  * the log's last month is partial (${dayCount(months[months.length - 1], first15)} days): shown, left out of the MAE`);
  return out;
}
const whole = table(false);
const half = table(true);

// Coverage per month.
console.log('\ncoverage: share of observable basket weight with ≥ 1 counted listing, mean over the month\'s days');
console.log(`  ${'month'.padEnd(8)} ${pad('all', 6)} ${OBSERVABLE.map((g) => pad(SHORT[g], 12)).join(' ')}`);
for (const m of months) {
  const idx = days.map((d, i) => (d.startsWith(m) ? i : -1)).filter((i) => i >= 0);
  const mean = (a: number[]) => idx.reduce((s, i) => s + a[i], 0) / idx.length;
  console.log(`  ${m.padEnd(8)} ${pad((100 * mean(run.all.coverage)).toFixed(1), 6)} ${OBSERVABLE.map((g) => pad((100 * mean(run.groups.get(g)!.coverage)).toFixed(1), 12)).join(' ')}`);
}

console.log('\nsummary: mean absolute error of the monthly change, percentage points (complete months)');
console.log(`  ${'series'.padEnd(40)} ${pad('nowcast', 8)} ${pad('crude', 7)} ${pad('flat', 6)} | ${pad('nowcast', 8)} ${pad('crude', 7)} ${pad('flat', 6)} (first 15 days)`);
for (let i = 0; i < whole.length; i++) {
  const a = whole[i];
  const b = half[i];
  console.log(`  ${a.label.padEnd(40)} ${pad(a.nowcast.toFixed(2), 8)} ${pad(a.crude.toFixed(2), 7)} ${pad(a.flat.toFixed(2), 6)} | ${pad(b.nowcast.toFixed(2), 8)} ${pad(b.crude.toFixed(2), 7)} ${pad(b.flat.toFixed(2), 6)}`);
}
// ---------------------------------------------------------------------------------------------
// 7. The multilateral alternative (issue 30): GEKS-Jevons items over a rolling window of days.
// Parameters are chosen on the FIRST complete months only (in-sample), by one criterion fixed before
// looking: the lowest in-sample MAE of all food against the official all-food change. The later
// months (out-of-sample) are reported untouched, for both methods.
const IN_SAMPLE = 3;
const completeMonths = compared.filter(complete);
const inSample = completeMonths.slice(0, IN_SAMPLE);
const outSample = completeMonths.slice(IN_SAMPLE);
{
  const byItem = new Map<string, (number | null)[][]>();
  for (const m of matched) {
    const l = byItem.get(m.itemCode) ?? [];
    l.push(carried(changes.get(m.sku)!));
    byItem.set(m.itemCode, l);
  }
  log('GEKS-Jevons: bilateral Jevons between every pair of days per basket item');
  const prepared = prepareItems(indexItems, days, byItem);
  const chained: Nowcast = { all: run.all.raw, groups: new Map(OBSERVABLE.map((g) => [g, run.groups.get(g)!.raw])), items: new Map() };
  const seriesOf = (n: Nowcast, key: string) => (key === 'all' ? n.all : n.groups.get(key)!);
  const offOf = (key: string, m: string) => offChange(key === 'all' ? 'total' : key, m);
  const mae = (n: Nowcast, key: string, ms: string[]) => {
    const mm = monthlyMeans(seriesOf(n, key), false);
    const e = ms.map((m) => Math.abs(change(mm, m)! - offOf(key, m)!));
    return e.reduce((s, x) => s + x, 0) / (e.length || 1);
  };
  const WINDOWS = [7, 14, 28, 56, 91];
  const SPLICES: Splice[] = ['movement', 'window', 'mean'];
  const grid: { window: number; splice: Splice; label: string; n: Nowcast }[] = [];
  for (const w of WINDOWS) for (const sp of SPLICES) grid.push({ window: w, splice: sp, label: `${w} d, ${sp} splice`, n: geksNowcast(indexItems, prepared, days, w, sp) });
  for (const sp of SPLICES) grid.push({ window: days.length, splice: sp, label: `expanding, ${sp} splice`, n: geksNowcast(indexItems, prepared, days, days.length, sp) });
  // Drift reference only (not a nowcast: every day's value uses the whole log): one GEKS window over the whole log.
  const whole = geksNowcast(indexItems, prepared, days, days.length, 'mean', false);
  log(`GEKS-Jevons: ${grid.length} variants computed`);

  console.log(`\nGEKS-Jevons variants (real time: the window grows from an item's first day until full; splice on the published series, as the ONS)`);
  console.log(`  in-sample MAE, pp (months ${inSample.join(', ')}); "expanding" = the window never rolls (all days so far)`);
  console.log(`  ${'variant'.padEnd(34)} ${pad('all food', 8)} ${pad('fruit & veg', 11)}`);
  let best = grid[0];
  for (const v of grid) {
    const a = mae(v.n, 'all', inSample);
    if (a < mae(best.n, 'all', inSample) - 1e-12) best = v;
    console.log(`  ${v.label.padEnd(34)} ${pad(a.toFixed(3), 8)} ${pad(mae(v.n, 'fruit_veg', inSample).toFixed(3), 11)}`);
  }
  console.log(`  chosen (lowest in-sample all-food MAE): ${best.label}`);

  console.log('\ndrift: raw level on the last day of the log (1000 on the first), chained Jevons vs GEKS-Jevons');
  console.log(`  ${'series'.padEnd(13)} ${pad('chained', 8)} ${pad('GEKS chosen', 11)} ${pad('GEKS whole log', 14)} ${pad('chained − whole', 15)}`);
  for (const key of ['all', ...OBSERVABLE]) {
    const c = seriesOf(chained, key).at(-1)!;
    const g = seriesOf(best.n, key).at(-1)!;
    const w = seriesOf(whole, key).at(-1)!;
    console.log(`  ${SHORT[key].padEnd(13)} ${pad(c.toFixed(1), 8)} ${pad(g.toFixed(1), 11)} ${pad(w.toFixed(1), 14)} ${pad(f2(((c / w) - 1) * 100) + ' %', 15)}`);
  }
  {
    // Item level: the chained run's item relative on the last day against the whole-log GEKS (transitive, drift-free).
    const diffs: number[] = [];
    for (const [code, r] of whole.items) {
      const c = run.items.get(code)?.relative.at(-1);
      const g = r.at(-1);
      if (c != null && g != null) diffs.push(Math.log(c / g) * 100);
    }
    diffs.sort((a, b) => a - b);
    const q = (p: number) => diffs[Math.min(diffs.length - 1, Math.floor(p * diffs.length))];
    const meanD = diffs.reduce((s, x) => s + x, 0) / diffs.length;
    console.log(`  items (${diffs.length}): 100·ln(chained / GEKS whole log) on the last day: mean ${f2(meanD)}, median ${f2(q(0.5))}, 10th ${f2(q(0.1))}, 90th ${f2(q(0.9))}`);
    // Split by churn: items whose count of priced listings never changes after their first day vs the others.
    for (const churn of [false, true]) {
      const d = prepared
        .filter((p) => p.n.some((x) => x !== p.n[0]) === churn)
        .map((p) => {
          const c = run.items.get(p.item.code)?.relative.at(-1);
          const g = whole.items.get(p.item.code)?.at(-1);
          return c != null && g != null ? Math.log(c / g) * 100 : null;
        })
        .filter((x): x is number => x != null);
      const mAbs = d.reduce((s, x) => s + Math.abs(x), 0) / (d.length || 1);
      const m = d.reduce((s, x) => s + x, 0) / (d.length || 1);
      console.log(`    ${churn ? 'listings enter during the log' : 'same listings throughout   '} (${d.length} items): mean ${f2(m)}, mean |·| ${mAbs.toFixed(2)}`);
    }
  }

  console.log(`\nout-of-sample choice: in-sample = ${inSample.join(', ')}; out-of-sample = ${outSample.join(', ')} (whole months; MAE of the monthly change against the official FPI, pp)`);
  console.log(`  ${'method'.padEnd(44)} ${'series'.padEnd(12)} ${pad('in-sample', 9)} ${pad('out-of-sample', 13)}`);
  const rows: [string, Nowcast | null][] = [['chained Jevons (current)', chained], [`GEKS-Jevons, ${best.label}`, best.n], ['flat 0 %', null]];
  for (const key of ['all', 'fruit_veg']) {
    for (const [label, n] of rows) {
      const flat = (ms: string[]) => ms.reduce((s, m) => s + Math.abs(offOf(key, m)!), 0) / (ms.length || 1);
      const a = n ? mae(n, key, inSample) : flat(inSample);
      const b = n ? mae(n, key, outSample) : flat(outSample);
      console.log(`  ${label.padEnd(44)} ${SHORT[key].padEnd(12)} ${pad(a.toFixed(2), 9)} ${pad(b.toFixed(2), 13)}`);
    }
  }
  for (const key of ['all', 'fruit_veg']) {
    const c = mae(chained, key, outSample);
    const g = mae(best.n, key, outSample);
    console.log(`  out of sample, ${SHORT[key]}: chained ${c.toFixed(3)}, GEKS ${g.toFixed(3)} → ${Math.abs(c - g) < 0.005 ? 'no difference at 0.01 pp' : c < g ? 'the chained Jevons wins' : 'GEKS-Jevons wins'}`);
  }
}

// Early estimates with intervals (issue 30 item 3; src/domain/index-validation.ts estimateMonth, as
// GET /api/v1/index/validation serves the latest month): each complete month as it could have been
// published on its day 7, day 15 and when complete, each interval from the earlier months' errors
// of the same estimate only (real time). Does the official change fall inside?
console.log(`\nearly estimates, as published on day 7, day 15 and when complete, with ${INTERVAL_LEVEL * 100} % intervals from the earlier months' errors (%, official inside?)`);
const officialChangeOf = (key: string, m: string) => offChange(key === 'all' ? 'total' : key, m);
for (const [key, off] of [['all', offLevels('total')], ['fruit_veg', offLevels('fruit_veg')]] as const) {
  const series = key === 'all' ? covered(run.all.raw, run.all.coverage) : covered(run.groups.get(key)!.raw, run.groups.get(key)!.coverage);
  const tally = new Map<string, { n: number; inside: number }>();
  console.log(`  ${SHORT[key]}`);
  for (const m of months.filter(complete)) {
    const cells: string[] = [];
    for (const [label, through] of [['day 7', 7], ['day 15', 15], ['final', 31]] as const) {
      const e = estimateMonth(series.filter((p) => p.day.slice(0, 7) < m || (p.day.startsWith(m) && Number(p.day.slice(8)) <= through)), off, m);
      if (!e || e.change == null || e.official == null) continue;
      const t = tally.get(label) ?? { n: 0, inside: 0 };
      let mark = 'no interval';
      if (e.low != null && e.high != null) {
        t.n += 1;
        const inside = e.official >= e.low && e.official <= e.high;
        if (inside) t.inside += 1;
        mark = `[${f2(e.low)}, ${f2(e.high)}] ${inside ? 'in' : 'OUT'}`;
      }
      tally.set(label, t);
      cells.push(`${label} ${f2(e.change)} ${mark}`);
    }
    if (cells.length) console.log(`    ${m} official ${f2(officialChangeOf(key, m))}: ${cells.join(' | ')}`);
  }
  console.log(`    official inside the interval: ${[...tally].map(([l, t]) => `${l} ${t.inside}/${t.n}`).join(', ')} (an interval needs 3 earlier months)`);
}

console.log('\nnotes: all log prices are shelf prices (the log cannot tell specials); each SKU is carried forward between');
console.log('changes until the log ends; sizes, names and sold-by-weight come from the 2026 catalogue; restaurant meals');
console.log('and ready-to-eat food are not observed (the nowcast renormalises over the four shelf groups).');
log('done');
