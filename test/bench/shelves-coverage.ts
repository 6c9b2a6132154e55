/**
 * Coverage of the shelf directory (src/domain/shelves.ts, shelves.json) on the real Woolworths NZ
 * online catalogue (../shared/data/neon-ninja--woolies/products.columns.tsv, or DATA_DIR), printed
 * for a human to judge. Nothing here asserts (the invariants are test/unit/shelves.test.ts).
 *
 *   npx tsx test/bench/shelves-coverage.ts                  # totals, per department, per shelf, gaps
 *   npx tsx test/bench/shelves-coverage.ts --tree           # + the whole directory with listing counts
 *   npx tsx test/bench/shelves-coverage.ts --no-unit Coffee # + listings of shelves whose label starts so, without a unit price
 *
 * A listing is on a shelf through its kind: `shelfOfKind(classify(listing).kind.slug)`, the rows
 * read by the importer's own reader (workers/import/catalogue.ts readCatalogue), as
 * test/bench/kinds-coverage.ts does. Also printed:
 * - department agreement: the share of shelved listings whose shelf's department is the one the
 *   chain files them under (the directory mirrors the chain's departments);
 * - unit prices: the share of shelved listings with a per-unit price in their shelf's unit
 *   (src/domain/unit-price.ts; null sorts last), per shelf where it is low;
 * - a cross-check of that arithmetic against the chain's own unit price (`cup_price` per
 *   `cup_measure`, from the shelf price) where the chain prints it in the shelf's unit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { classify, kindText, type KindInput } from '../../src/domain/kinds.js';
import { crumbs, SHELVES, shelfOfKind, type Shelf } from '../../src/domain/shelves.js';
import { measureOf, SHELF_COMPARE_UNITS, unitPrice, type ShelfCompareUnit } from '../../src/domain/unit-price.js';
import { readCatalogue, CATALOGUE_COLUMNS } from '../../workers/import/catalogue.js';

const DATA_DIR = process.env.DATA_DIR ?? path.resolve(import.meta.dirname, '../../../shared/data');
const FILE = path.join(DATA_DIR, 'neon-ninja--woolies', 'products.columns.tsv');

/** The value after `flag` on the command line, or undefined. */
function arg(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : '-');
const count = <K>(m: Map<K, number>, k: K, n = 1) => m.set(k, (m.get(k) ?? 0) + n);
const top = <K>(m: Map<K, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);

// The chain's own unit price, which readCatalogue does not keep: sku → cup price (cents) per cup measure.
const cols = Object.fromEntries(CATALOGUE_COLUMNS.map((c, i) => [c, i])) as Record<(typeof CATALOGUE_COLUMNS)[number], number>;
const cup = new Map<string, { cents: number; measure: string }>();
for (const line of fs.readFileSync(FILE, 'utf8').split('\n').slice(1)) {
  const f = line.split('\t');
  if (f.length < CATALOGUE_COLUMNS.length) continue;
  const cents = Math.round(Number(f[cols.cup_price]) * 100);
  if (cents > 0 && f[cols.cup_measure]) cup.set(f[cols.sku], { cents, measure: f[cols.cup_measure] });
}
/** The chain's cup measures that are one of our compare units. */
const CUP_UNIT: Record<string, ShelfCompareUnit> = { '1kg': 'kg', '1L': 'l', '100g': '100g', '100mL': '100ml', '1ea': 'each', '100ss': '100sheet' };

interface Row {
  sku: string;
  name: string;
  brand: string | null;
  department: string;
  sizeText: string | null;
  weighable: boolean;
  price: number;
  /** The price paid today: the promotion's when there is one, else the shelf price (cents). */
  paid: number;
  kind: string | null;
  shelf: Shelf | null;
  perUnit: number | null;
}

const rows: Row[] = readCatalogue(FILE).rows.map((r) => {
  const input: KindInput = { name: r.name, brand: r.brand, sizeText: r.sizeText, categoryPath: r.department ? [r.department] : [], weighable: r.weighable };
  const c = classify(input);
  const shelf = c ? shelfOfKind(c.kind.slug) : null;
  const perUnit = shelf?.compareUnit && r.prices.price > 0 ? unitPrice(r.prices.price, measureOf(r.sizeText, r.weighable), shelf.compareUnit) : null;
  return { sku: r.sku, name: r.name, brand: r.brand, department: r.department ?? '', sizeText: r.sizeText, weighable: r.weighable, price: r.prices.price, paid: r.prices.promo_price ?? r.prices.price, kind: c?.kind.slug ?? null, shelf, perUnit };
});

const named = rows.filter((r) => r.name.trim());
const kinded = named.filter((r) => r.kind);
const shelved = named.filter((r) => r.shelf);
console.log(`catalogue: ${FILE}`);
console.log(`directory: ${SHELVES.length} shelves (${[1, 2, 3].map((d) => `${SHELVES.filter((s) => s.depth === d).length} at depth ${d}`).join(', ')})`);
console.log(`named listings: ${named.length}`);
console.log(`with a kind:    ${kinded.length} / ${named.length} (${pct(kinded.length, named.length)})`);
console.log(`on a shelf:     ${shelved.length} / ${named.length} (${pct(shelved.length, named.length)})`);
const kindNoShelf = new Map<string, number>();
for (const r of kinded) if (!r.shelf) count(kindNoShelf, r.kind!);
console.log(`kinds without a shelf: ${kindNoShelf.size ? top(kindNoShelf, 20).map(([k, n]) => `${k} ${n}`).join(', ') : 'none'}`);

const deptOf = (s: Shelf) => crumbs(s.slug)[0];
const agree = shelved.filter((r) => deptOf(r.shelf!).label === r.department).length;
console.log(`department agreement (shelf's department = the chain's): ${agree} / ${shelved.length} (${pct(agree, shelved.length)})`);

console.log('\nper chain department (listings on a shelf):');
const byDept = new Map<string, { n: number; hit: number }>();
for (const r of named) {
  const d = byDept.get(r.department) ?? { n: 0, hit: 0 };
  d.n++;
  if (r.shelf) d.hit++;
  byDept.set(r.department, d);
}
for (const [dept, d] of [...byDept].sort((a, b) => b[1].n - a[1].n)) {
  console.log(`  ${(dept || '(none)').padEnd(16)} ${String(d.hit).padStart(5)} / ${String(d.n).padStart(5)}  ${pct(d.hit, d.n).padStart(7)}`);
}

console.log('\nper shelf department (listings, and where the chain files them):');
for (const dep of SHELVES.filter((s) => s.depth === 1)) {
  const mine = shelved.filter((r) => deptOf(r.shelf!) === dep);
  const from = new Map<string, number>();
  for (const r of mine) count(from, r.department);
  console.log(`  ${dep.label.padEnd(16)} ${String(mine.length).padStart(5)}  ← ${top(from, 4).map(([d, n]) => `${d} ${n}`).join(', ')}`);
}

// Unit prices on the shelf's unit.
const priced = shelved.filter((r) => r.price > 0);
const withUnit = priced.filter((r) => r.perUnit != null);
console.log(`\nunit price in the shelf's unit: ${withUnit.length} / ${priced.length} priced shelved listings (${pct(withUnit.length, priced.length)})`);
const perLeaf = new Map<Shelf, { n: number; hit: number }>();
for (const r of priced) {
  const d = perLeaf.get(r.shelf!) ?? { n: 0, hit: 0 };
  d.n++;
  if (r.perUnit != null) d.hit++;
  perLeaf.set(r.shelf!, d);
}
const low = [...perLeaf].filter(([, d]) => d.hit / d.n < 0.8).sort((a, b) => b[1].n - b[1].hit - (a[1].n - a[1].hit));
console.log(`shelves under 80 % (most listings without a unit price first):`);
for (const [s, d] of low) console.log(`  ${s.label.padEnd(40)} ${s.compareUnit!.padEnd(8)} ${String(d.hit).padStart(4)} / ${String(d.n).padStart(4)}  ${pct(d.hit, d.n).padStart(7)}`);

// Which unit would give most listings a unit price, where it is not the shelf's (a hint for shelves.json).
const hints: string[] = [];
for (const [s, d] of perLeaf) {
  const mine = priced.filter((r) => r.shelf === s);
  let best: { unit: ShelfCompareUnit; n: number } = { unit: s.compareUnit!, n: d.hit };
  for (const u of SHELF_COMPARE_UNITS) {
    const n = mine.filter((r) => unitPrice(r.price, measureOf(r.sizeText, r.weighable), u) != null).length;
    if (n > best.n) best = { unit: u, n };
  }
  if (best.unit !== s.compareUnit && best.n - d.hit >= Math.max(2, 0.1 * d.n)) hints.push(`  ${s.slug.padEnd(28)} ${s.compareUnit} ${d.hit} → ${best.unit} ${best.n} of ${d.n}`);
}
console.log(`shelves where another unit would price more listings: ${hints.length ? `\n${hints.join('\n')}` : 'none'}`);

// Cross-check against the chain's own unit price, where it prints one in the shelf's unit. The
// chain computes it from the price paid today (a special's or club price when there is one).
let compared = 0;
let within = 0;
const off: string[] = [];
const close = (a: number, b: number) => Math.abs(a - b) <= Math.max(1, 0.02 * b);
for (const r of withUnit) {
  const c = cup.get(r.sku);
  if (!c || CUP_UNIT[c.measure] !== r.shelf!.compareUnit) continue;
  compared++;
  const paid = unitPrice(r.paid, measureOf(r.sizeText, r.weighable), r.shelf!.compareUnit!)!;
  if (close(r.perUnit!, c.cents) || close(paid, c.cents)) within++;
  else if (off.length < 12) off.push(`  ${r.name} [${r.sizeText ?? '-'}] ${r.price} c (paid ${r.paid} c) → ours ${r.perUnit} c / ${paid} c ${r.shelf!.compareUnit}, chain ${c.cents} c ${c.measure}`);
}
console.log(`\nagainst the chain's own unit price (same unit): ${within} / ${compared} within 1 cent or 2 % (${pct(within, compared)})`);
if (off.length) console.log(`first differences:\n${off.join('\n')}`);

// Gaps: where the unshelved listings are and what they are called.
const unshelved = named.filter((r) => !r.shelf);
console.log(`\nunshelved listings: ${unshelved.length}; biggest chain departments and their commonest name words (brand words left out):`);
const STOP = new Set(['and', 'with', 'of', 'the', 'in', 'for', 'a', 'pack', 'pk', 'mini', 'free', 'original', 'new', 'assorted', 'mixed', 'classic', 'variety', 'fresh', 'natural', 'x']);
const unDept = new Map<string, number>();
for (const r of unshelved) count(unDept, r.department);
for (const [dept, n] of top(unDept, 14)) {
  const words = new Map<string, number>();
  for (const r of unshelved.filter((x) => x.department === dept)) {
    const brand = new Set(kindText(r.brand ?? '').split(' '));
    for (const w of new Set(kindText(r.name).split(' '))) if (w.length > 2 && !brand.has(w) && !STOP.has(w) && !/^\d/.test(w)) count(words, w);
  }
  console.log(`  ${(dept || '(none)').padEnd(16)} ${String(n).padStart(5)}  ${top(words, 12).map(([w, k]) => `${w} ${k}`).join(', ')}`);
}

const used = new Map<Shelf, number>();
for (const r of shelved) count(used, r.shelf!);
const emptyLeaves = SHELVES.filter((s) => !s.children.length && !used.has(s));
console.log(`\nleaf shelves with no listing in this catalogue: ${emptyLeaves.length ? emptyLeaves.map((s) => s.slug).join(', ') : 'none'}`);

if (process.argv.includes('--tree')) {
  console.log('\ndirectory (listings on the shelf and below; unit):');
  const under = (s: Shelf): number => (used.get(s) ?? 0) + s.children.reduce((t, c) => t + under(SHELVES.find((x) => x.slug === c)!), 0);
  for (const s of SHELVES) console.log(`${'  '.repeat(s.depth)}${s.label} [${s.slug}] ${under(s)}${s.compareUnit ? ` ${s.compareUnit}` : ''}`);
}

const noUnit = arg('--no-unit');
if (noUnit) {
  console.log(`\nwithout a unit price on shelves starting "${noUnit}":`);
  for (const r of priced) if (r.perUnit == null && r.shelf!.label.startsWith(noUnit)) console.log(`  ${r.shelf!.slug}: ${r.name} [${r.sizeText ?? '-'}]${r.weighable ? ' weighable' : ''}`);
}
