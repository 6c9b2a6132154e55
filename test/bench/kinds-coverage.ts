/**
 * Coverage of the kind taxonomy (src/domain/kinds.ts) on the real Woolworths NZ online catalogue
 * (../shared/data/neon-ninja--woolies/products.columns.tsv, or DATA_DIR), printed for a human to
 * judge. Nothing here asserts.
 *
 *   npx tsx test/bench/kinds-coverage.ts                     # totals, per department, kinds used
 *   npx tsx test/bench/kinds-coverage.ts --sample 5          # + 5 random classifications per kind (seeded)
 *   npx tsx test/bench/kinds-coverage.ts --kind milk         # only that kind's samples (with --sample)
 *   npx tsx test/bench/kinds-coverage.ts --unclassified Pantry   # unclassified names of a department
 *   npx tsx test/bench/kinds-coverage.ts --seed 7            # another sample draw
 *
 * Each row becomes the KindInput of its listing, read by the importer's own reader
 * (workers/import/catalogue.ts readCatalogue): name, brand, size text ("per kg" when sold by
 * weight), category path [department], weighable.
 */
import path from 'node:path';
import { classify, KINDS, type Classification, type KindInput } from '../../src/domain/kinds.js';
import { prng } from '../helpers/prng.js';
import { readCatalogue, type CatalogueRow } from '../../workers/import/catalogue.js';

const DATA_DIR = process.env.DATA_DIR ?? path.resolve(import.meta.dirname, '../../../shared/data');
const FILE = path.join(DATA_DIR, 'neon-ninja--woolies', 'products.columns.tsv');

/** The departments that sell food and drink (the coverage target). */
const FOOD = ['Pantry', 'Fridge & Deli', 'Fruit & Veg', 'Meat & Poultry', 'Fish & Seafood', 'Bakery', 'Frozen', 'Drinks'];

/** The value after `flag` on the command line, or undefined. */
function arg(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)} %` : '-');

// The rows as the importer reads them (workers/import/catalogue.ts), so the inputs are the listings'.
const results: { row: CatalogueRow & { departments: string }; input: KindInput; c: Classification | null }[] = readCatalogue(FILE).rows.map((r) => {
  const input: KindInput = { name: r.name, brand: r.brand, sizeText: r.sizeText, categoryPath: r.department ? [r.department] : [], weighable: r.weighable };
  return { row: { ...r, departments: r.department ?? '' }, input, c: classify(input) };
});

const byDept = new Map<string, { n: number; hit: number }>();
for (const r of results) {
  const d = byDept.get(r.row.departments) ?? { n: 0, hit: 0 };
  d.n++;
  if (r.c) d.hit++;
  byDept.set(r.row.departments, d);
}
const hit = results.filter((r) => r.c).length;
const food = results.filter((r) => FOOD.includes(r.row.departments));
const foodHit = food.filter((r) => r.c).length;
console.log(`catalogue: ${FILE}`);
console.log(`classified: ${hit} / ${results.length} (${pct(hit, results.length)})`);
console.log(`food departments: ${foodHit} / ${food.length} (${pct(foodHit, food.length)})`);
console.log('\nper department:');
for (const [dept, d] of [...byDept].sort((a, b) => b[1].n - a[1].n)) {
  console.log(`  ${(FOOD.includes(dept) ? '* ' : '  ') + dept.padEnd(16)} ${String(d.hit).padStart(5)} / ${String(d.n).padStart(5)}  ${pct(d.hit, d.n).padStart(7)}`);
}
const used = new Map<string, number>();
for (const r of results) if (r.c) used.set(r.c.kind.slug, (used.get(r.c.kind.slug) ?? 0) + 1);
const generics = new Set(results.filter((r) => r.c).map((r) => r.c!.key));
console.log(`\nkinds: ${used.size} used of ${KINDS.length}; generics: ${generics.size}`);
const unused = KINDS.filter((k) => !used.has(k.slug)).map((k) => k.slug);
if (unused.length) console.log(`unused kinds: ${unused.join(', ')}`);

const sample = Number(arg('--sample') ?? 0);
if (sample > 0) {
  const random = prng(Number(arg('--seed') ?? 1)); // seeded: the same samples from run to run
  const only = arg('--kind');
  for (const k of KINDS) {
    if (only && k.slug !== only) continue;
    const mine = results.filter((r) => r.c?.kind.slug === k.slug);
    if (!mine.length) continue;
    const picked = [...mine].map((r) => ({ r, w: random() })).sort((a, b) => a.w - b.w).slice(0, sample);
    console.log(`\n## ${k.slug} (${mine.length})`);
    for (const { r } of picked) console.log(`  ${r.c!.label.padEnd(48)} ← ${r.row.name} [${r.row.departments}; ${r.input.sizeText ?? '-'}]`);
  }
}

const dept = arg('--unclassified');
if (dept) {
  const names = results.filter((r) => !r.c && (dept === 'all' || r.row.departments === dept)).map((r) => r.row.name).sort();
  console.log(`\nunclassified in ${dept}: ${names.length}`);
  for (const n of names) console.log(`  ${n}`);
}
