/**
 * Matching quality and speed (issue 5, item 4), printed by `npm run bench` (alone:
 * `npm run bench:matching`; `-- --verbose` also lists every link made). Nothing here asserts.
 *
 * Data: the real data (../shared/data, or DATA_DIR) imported into a fresh database on the benches'
 * server (test/bench/server.ts: TEST_DATABASE_URL's, else a throwaway embedded PostgreSQL) with the
 * service's own importer — or, when BENCH_MATCH_DATABASE_URL names a database that already holds that
 * import, that one (then the worker runs as a dry run).
 *
 * Sets (test/fixtures/matching/README.md):
 * (a) HAND-JUDGED REAL PAIRS (test/fixtures/matching/pairs.json): cross-chain pairs of real
 *     listings, judged by hand as the same item (brand, kind, size) or not, or left unsure.
 *     Precision = same among the pairs the matcher links, over judged ones; recall = linked among
 *     the same pairs. Every pair the matcher links at a printed threshold should be judged: the
 *     "unjudged" column says when one is not.
 * (b) BARCODE-KNOWN PAIRS: listings of different chains carrying one GTIN, matched again with
 *     barcodes hidden. The real data holds GTINs for Woolworths listings only, so this set is empty
 *     there and the bench says so; nothing synthetic stands in for it.
 * Speed: a SYNTHETIC catalogue (generated names, timing only, no quality figures).
 *
 * The threshold rule: the lowest threshold whose precision on set (a) is at least 0.95 there and
 * at every higher threshold of the grid (max recall under that precision), with no unjudged link.
 * The calibration (src/domain/matching.ts CALIBRATION) is a logistic fit of judged proposals;
 * the bench refits it and says when the shipped constants drift from the fit.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase, type Database } from '../../src/db/database.js';
import { importRealData } from '../../workers/import/index.js';
import { readAllListings, type ListingRow } from '../../workers/match/store.js';
import { runMatching } from '../../workers/match/match.js';
import { benchServer } from './server.js';
import {
  CALIBRATION,
  DEFAULT_THRESHOLD,
  groupLinks,
  listingFeatures,
  proposeLinks,
  type ListingFeatures,
  type MatchListing,
} from '../../src/domain/matching.js';

const PAIRS_FILE = new URL('../fixtures/matching/pairs.json', import.meta.url).pathname;
/** Confidence thresholds evaluated: every 0.05 from 0.30, every 0.01 from 0.80 (where links thin out). */
const THRESHOLDS = [
  ...Array.from({ length: 10 }, (_, i) => 0.3 + 0.05 * i),
  ...Array.from({ length: 18 }, (_, i) => 0.8 + 0.01 * i),
].map((t) => Math.round(t * 100) / 100);
const MIN_PRECISION = 0.95;
const VERBOSE = process.argv.includes('--verbose');

/** One side of a judged pair, as pairs.json writes it. */
interface PairSide {
  retailer: string;
  external_id: string;
  name: string;
  size_text: string | null;
  price_cents: number | null;
}

/** A judged pair of pairs.json. */
interface JudgedPair {
  a: PairSide;
  b: PairSide;
  label: 'same' | 'different' | 'unsure';
  certainty: 'certain' | 'likely' | null;
  basis: string;
}

const pairKey = (x: number, y: number) => (x < y ? `${x}:${y}` : `${y}:${x}`);
const pct = (x: number) => (Number.isNaN(x) ? '   –  ' : `${(100 * x).toFixed(1).padStart(5)}%`);

/** The database with the real data imported, and how to let go of it. */
async function realDatabase(): Promise<{ db: Database; reused: boolean; done: () => Promise<void> }> {
  if (process.env.BENCH_MATCH_DATABASE_URL) {
    const db = await openDatabase({ databaseUrl: process.env.BENCH_MATCH_DATABASE_URL, embeddedDir: '', embeddedPort: 0 });
    return { db, reused: true, done: () => db.close() };
  }
  await benchServer();
  // test/helpers/db.ts reads TEST_DATABASE_URL as it is imported: only once the server is known.
  const { createTestDatabase, DATA_DIR } = await import('../helpers/db.js');
  const db = await createTestDatabase('bench_match');
  const t = performance.now();
  await importRealData(db.pool, DATA_DIR, { progress: false });
  console.log(`real data imported into a fresh database in ${((performance.now() - t) / 1000).toFixed(1)} s (${DATA_DIR})`);
  return {
    db,
    reused: false,
    done: () => db.drop(),
  };
}

/** Cross-chain listing pairs that end up in one group. */
function linkedPairs(groups: ReturnType<typeof groupLinks>, retailerOf: Map<number, string>): Set<string> {
  const out = new Set<string>();
  for (const g of groups) {
    for (let i = 0; i < g.listingIds.length; i++) {
      for (let k = i + 1; k < g.listingIds.length; k++) {
        const [x, y] = [g.listingIds[i], g.listingIds[k]];
        if (retailerOf.get(x) !== retailerOf.get(y)) out.add(pairKey(x, y));
      }
    }
  }
  return out;
}

interface Row {
  threshold: number;
  links: number;
  tp: number;
  fp: number;
  fn: number;
  unsure: number;
  unjudged: number;
  precision: number;
  recall: number;
  f1: number;
}

function evaluate(linked: Set<string>, labels: Map<string, JudgedPair['label']>, threshold: number): Row {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let unsure = 0;
  let unjudged = 0;
  for (const k of linked) {
    const l = labels.get(k);
    if (l === 'same') tp++;
    else if (l === 'different') fp++;
    else if (l === 'unsure') unsure++;
    else unjudged++;
  }
  for (const [k, l] of labels) if (l === 'same' && !linked.has(k)) fn++;
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  return { threshold, links: linked.size, tp, fp, fn, unsure, unjudged, precision, recall, f1: (2 * precision * recall) / (precision + recall) };
}

function printTable(title: string, rows: Row[]): void {
  console.log(`\n${title}`);
  console.log('  threshold  links   TP  FP  FN  unsure unjudged  precision  recall     F1   precision 95% interval');
  for (const r of rows) {
    const [lo, hi] = wilson(r.tp, r.tp + r.fp);
    console.log(
      `  ${r.threshold.toFixed(2).padStart(9)}  ${String(r.links).padStart(5)}  ${String(r.tp).padStart(3)} ${String(r.fp).padStart(3)} ${String(r.fn).padStart(3)}  ${String(r.unsure).padStart(6)} ${String(r.unjudged).padStart(8)}     ${pct(r.precision)}  ${pct(r.recall)}  ${pct(r.f1)}   ${pct(lo)} – ${pct(hi)}`,
    );
  }
}

/** Wilson score interval (95 %) of a proportion k/n. */
function wilson(k: number, n: number): [number, number] {
  if (n === 0) return [NaN, NaN];
  const z = 1.96;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = p + (z * z) / (2 * n);
  const m = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [(c - m) / d, (c + m) / d];
}

/** The lowest threshold with precision ≥ MIN_PRECISION there and at every higher one, no unjudged link. */
function chooseThreshold(rows: Row[]): Row | null {
  let chosen: Row | null = null;
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i];
    if (r.links === 0) continue;
    if (!(r.precision >= MIN_PRECISION) || r.unjudged > 0) break;
    chosen = r;
  }
  return chosen;
}

/** Logistic regression of y on x (Newton's method, L2 0.1 on the slope so a separable set stays finite). */
function fitPlatt(xs: number[], ys: number[]): { A: number; B: number } {
  let A = 10;
  let B = -7;
  const lambda = 0.1;
  for (let it = 0; it < 100; it++) {
    let gA = lambda * A;
    let gB = 0;
    let hAA = lambda;
    let hAB = 0;
    let hBB = 1e-9;
    for (let i = 0; i < xs.length; i++) {
      const p = 1 / (1 + Math.exp(-(A * xs[i] + B)));
      const w = p * (1 - p);
      gA += (p - ys[i]) * xs[i];
      gB += p - ys[i];
      hAA += w * xs[i] * xs[i];
      hAB += w * xs[i];
      hBB += w;
    }
    const det = hAA * hBB - hAB * hAB;
    const dA = (hBB * gA - hAB * gB) / det;
    const dB = (hAA * gB - hAB * gA) / det;
    A -= dA;
    B -= dB;
    if (Math.abs(dA) + Math.abs(dB) < 1e-9) break;
  }
  return { A, B };
}

function brier(ps: number[], ys: number[]): number {
  return ps.reduce((s, p, i) => s + (p - ys[i]) ** 2, 0) / ps.length;
}

async function qualityOnRealData(): Promise<void> {
  console.log('\n=== matching quality on the real data ===');
  const { db, reused, done } = await realDatabase();
  try {
    const client = await db.pool.connect();
    let listings: ListingRow[];
    try {
      listings = await readAllListings(client);
    } finally {
      client.release();
    }
    const features = listings.map((l) => listingFeatures(l, { placeholder: l.placeholder }));
    const byId = new Map(listings.map((l) => [l.id, l]));
    const retailerOf = new Map(listings.map((l) => [l.id, l.retailer]));
    const idOf = new Map(listings.map((l) => [`${l.retailer}:${l.externalId}`, l.id]));
    const perChain = new Map<string, { all: number; named: number; gtin: number }>();
    for (const l of listings) {
      const c = perChain.get(l.retailer) ?? { all: 0, named: 0, gtin: 0 };
      c.all++;
      if (!l.placeholder) c.named++;
      if (l.gtin) c.gtin++;
      perChain.set(l.retailer, c);
    }
    console.log(`listings: ${[...perChain].map(([r, c]) => `${r} ${c.all} (${c.named} with a real name, ${c.gtin} with a GTIN)`).join('; ')}`);

    // (a) hand-judged real pairs
    const judged = JSON.parse(fs.readFileSync(PAIRS_FILE, 'utf8')) as JudgedPair[];
    const labels = new Map<string, JudgedPair['label']>();
    const drift: string[] = [];
    for (const p of judged) {
      const [a, b] = [idOf.get(`${p.a.retailer}:${p.a.external_id}`), idOf.get(`${p.b.retailer}:${p.b.external_id}`)];
      if (a === undefined || b === undefined) {
        drift.push(`missing listing ${a === undefined ? `${p.a.retailer}:${p.a.external_id}` : `${p.b.retailer}:${p.b.external_id}`}`);
        continue;
      }
      for (const [id, side] of [[a, p.a], [b, p.b]] as const) {
        const l = byId.get(id)!;
        if (l.name.trim() !== side.name || (l.sizeText ?? null) !== side.size_text) drift.push(`${side.retailer}:${side.external_id} is now "${l.name}" ${l.sizeText ?? ''}`);
      }
      labels.set(pairKey(a, b), p.label);
    }
    const count = (l: string) => judged.filter((p) => p.label === l).length;
    console.log(`\n(a) HAND-JUDGED REAL PAIRS (${path.relative(process.cwd(), PAIRS_FILE)}): ${judged.length} real cross-chain pairs — ${count('same')} same item, ${count('different')} different, ${count('unsure')} unsure (not scored)`);
    if (drift.length > 0) console.log(`  warning: the data no longer matches the judged pairs:\n    ${drift.join('\n    ')}`);

    const edges = proposeLinks(features, { floor: 0 });
    const rows = THRESHOLDS.map((t) => evaluate(linkedPairs(groupLinks(features, edges, { threshold: t }), retailerOf), labels, t));
    printTable('  precision/recall of name matching per confidence threshold (links = cross-chain pairs linked):', rows);
    const chosen = chooseThreshold(rows);
    console.log(
      chosen
        ? `  chosen threshold: ${chosen.threshold.toFixed(2)} (lowest with precision >= ${MIN_PRECISION} there and above, no unjudged link): precision ${pct(chosen.precision)} (95% interval ${wilson(chosen.tp, chosen.tp + chosen.fp).map(pct).join(' –')}), recall ${pct(chosen.recall)}, F1 ${pct(chosen.f1)}`
        : `  no threshold reaches precision ${MIN_PRECISION} with every link judged`,
    );
    console.log(`  shipped DEFAULT_THRESHOLD: ${DEFAULT_THRESHOLD}${chosen && chosen.threshold !== DEFAULT_THRESHOLD ? '  <-- differs from the chosen threshold: update src/domain/matching.ts' : ''}`);

    const noPrice = proposeLinks(features, { floor: 0, usePrice: false });
    const ablation = THRESHOLDS.map((t) => evaluate(linkedPairs(groupLinks(features, noPrice, { threshold: t }), retailerOf), labels, t));
    printTable('  ablation — the same without the price evidence (names, brands and sizes only):', ablation);
    const chosenNoPrice = chooseThreshold(ablation);
    console.log(
      chosenNoPrice
        ? `  without prices the rule would choose ${chosenNoPrice.threshold.toFixed(2)}: precision ${pct(chosenNoPrice.precision)}, recall ${pct(chosenNoPrice.recall)}`
        : '  without prices no threshold reaches the precision rule',
    );

    // Calibration: a logistic fit of the judged name proposals' ambiguity-adjusted scores.
    const nameEdges = edges.filter((e) => e.method === 'name' && (labels.get(pairKey(e.a, e.b)) === 'same' || labels.get(pairKey(e.a, e.b)) === 'different'));
    const xs = nameEdges.map((e) => Number(e.detail.score));
    const ys = nameEdges.map((e) => (labels.get(pairKey(e.a, e.b)) === 'same' ? 1 : 0));
    const fit = fitPlatt(xs, ys);
    const shipped = xs.map((x) => 1 / (1 + Math.exp(-(CALIBRATION.A * x + CALIBRATION.B))));
    const loo = xs.map((x, i) => {
      const f = fitPlatt(xs.filter((_, k) => k !== i), ys.filter((_, k) => k !== i));
      return 1 / (1 + Math.exp(-(f.A * x + f.B)));
    });
    console.log(`\n  calibration on ${xs.length} judged name proposals (mutual best candidates): fit A = ${fit.A.toFixed(2)}, B = ${fit.B.toFixed(2)}; shipped A = ${CALIBRATION.A}, B = ${CALIBRATION.B}`);
    if (Math.abs(fit.A - CALIBRATION.A) > 0.5 || Math.abs(fit.B - CALIBRATION.B) > 0.5) console.log('  <-- the shipped calibration drifted from the fit: update CALIBRATION in src/domain/matching.ts');
    console.log(`  Brier score: shipped ${brier(shipped, ys).toFixed(3)}, leave-one-out refit ${brier(loo, ys).toFixed(3)}, constant base rate ${brier(ys.map(() => ys.reduce((a: number, b) => a + b, 0) / ys.length), ys).toFixed(3)}`);
    console.log('  reliability (shipped confidence bins): bin  n  mean confidence  share judged same');
    for (const [lo, hi] of [[0, 0.3], [0.3, 0.5], [0.5, 0.7], [0.7, 0.85], [0.85, 1.01]]) {
      const idx = shipped.map((p, i) => [p, i] as const).filter(([p]) => p >= lo && p < hi).map(([, i]) => i);
      if (idx.length === 0) continue;
      const mean = idx.reduce((s, i) => s + shipped[i], 0) / idx.length;
      const share = idx.reduce((s, i) => s + ys[i], 0) / idx.length;
      console.log(`    [${lo.toFixed(2)}, ${Math.min(hi, 1).toFixed(2)})  ${String(idx.length).padStart(3)}  ${pct(mean)}  ${pct(share)}`);
    }

    const threshold = chosen?.threshold ?? DEFAULT_THRESHOLD;
    const unjudged = [...linkedPairs(groupLinks(features, edges, { threshold: THRESHOLDS[0] }), retailerOf)].filter((k) => !labels.has(k));
    if (unjudged.length > 0) {
      console.log(`\n  pairs linked at ${THRESHOLDS[0]} that pairs.json does not judge (judge them to keep precision honest):`);
      for (const k of unjudged) {
        const [x, y] = k.split(':').map(Number);
        console.log(`    ${describe(byId.get(x)!)}  <->  ${describe(byId.get(y)!)}`);
      }
    }
    if (VERBOSE) {
      console.log(`\n  links at ${threshold}:`);
      for (const e of edges.filter((e) => e.method !== 'name' || e.confidence >= threshold)) {
        console.log(`    ${e.method} ${e.confidence.toFixed(3)}  ${describe(byId.get(e.a)!)}  <->  ${describe(byId.get(e.b)!)}  [${labels.get(pairKey(e.a, e.b)) ?? 'unjudged'}]`);
      }
    }

    // (b) barcode-known pairs
    barcodeKnown(features, retailerOf, threshold);

    // The worker itself on the real data.
    const report = await runMatching(db.pool, { dryRun: reused, progress: false });
    console.log(`\nthe worker on the real data (${reused ? 'dry run on BENCH_MATCH_DATABASE_URL' : 'fresh import'}), threshold ${report.threshold}: ` +
      `${Object.entries(report.linked).map(([m, n]) => `${n} listings linked by ${m}`).join(', ') || 'no links'}; ${report.products.total} products; ` +
      `${report.seconds.read.toFixed(2)} s read, ${report.seconds.match.toFixed(2)} s match, ${report.seconds.write.toFixed(2)} s write`);
    if (!reused) {
      const again = await runMatching(db.pool, { progress: false });
      const { link, relink, unlink, update } = again.changes;
      console.log(`re-run: ${link + relink + unlink + update} listing changes, ${again.products.created} products created, ${again.products.updated} updated, ${again.products.deleted} removed (idempotent when all are 0)`);
    }
  } finally {
    await done();
  }
}

function describe(l: ListingRow): string {
  return `${l.retailer}:${l.externalId} "${l.name.trim()}" ${l.sizeText ?? ''}`.trim();
}

/**
 * (b): pairs of listings of different chains with one GTIN, matched again by name with the
 * barcodes hidden (exact links off), compared at `threshold`.
 */
function barcodeKnown(features: readonly ListingFeatures[], retailerOf: Map<number, string>, threshold: number): void {
  const byGtin = new Map<string, ListingFeatures[]>();
  for (const f of features) if (f.gtin) byGtin.set(f.gtin, [...(byGtin.get(f.gtin) ?? []), f]);
  const truth = new Set<string>();
  for (const group of byGtin.values()) {
    for (let i = 0; i < group.length; i++) for (let k = i + 1; k < group.length; k++) if (group[i].retailer !== group[k].retailer) truth.add(pairKey(group[i].id, group[k].id));
  }
  const withGtin = features.filter((f) => f.gtin);
  const chains = [...new Set(withGtin.map((f) => f.retailer))];
  console.log(`\n(b) BARCODE-KNOWN PAIRS (real data): ${withGtin.length} listings carry a valid GTIN, all at ${chains.join(', ') || 'no chain'}; cross-chain pairs sharing one: ${truth.size}.`);
  if (truth.size === 0) {
    console.log('  Not measurable: no two chains share a barcode in the real data (Foodstuffs rows have no GTINs). No synthetic set stands in for it.');
    return;
  }
  const edges = proposeLinks(features, { floor: 0, exact: false });
  const linked = linkedPairs(groupLinks(features, edges, { threshold }), retailerOf);
  const barcoded = new Set(withGtin.map((f) => f.id));
  let tp = 0;
  let fp = 0;
  for (const k of linked) {
    const [x, y] = k.split(':').map(Number);
    if (!barcoded.has(x) || !barcoded.has(y)) continue; // only pairs whose truth is known
    if (truth.has(k)) tp++;
    else fp++;
  }
  const fn = [...truth].filter((k) => !linked.has(k)).length;
  console.log(`  at ${threshold}: TP ${tp}, FP ${fp}, FN ${fn}; precision ${pct(tp / (tp + fp))}, recall ${pct(tp / (tp + fn))}`);
}

/** A SYNTHETIC catalogue for timing: brand + 2–4 words of a Zipf vocabulary + a size, at 1–3 chains. */
function syntheticCatalogue(products: number): MatchListing[] {
  let a = 20261121;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const vocab = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}`);
  const word = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(rnd() * Math.log(vocab.length))) - 1)];
  const sizes = ['400g', '500g', '1kg', '250g', '750g', '200g', '120g', '340g', '6pk', '1ea', '30g', '1l', '2l', '600ml'];
  const out: MatchListing[] = [];
  for (let p = 0; p < products; p++) {
    const brand = `brand${Math.floor(rnd() * 800)}`;
    const words = Array.from({ length: 2 + Math.floor(rnd() * 3) }, word).join(' ');
    const size = sizes[Math.floor(rnd() * sizes.length)];
    for (const chain of ['woolworths', 'paknsave', 'newworld']) {
      if (rnd() >= 0.7) continue;
      const id = out.length + 1;
      out.push({ id, retailer: chain, externalId: `SYN-${id}`, name: chain === 'woolworths' ? `${brand} ${words}` : words, brand: null, sizeText: size, gtin: null, weighable: false, price: 100 + Math.floor(rnd() * 900) });
    }
  }
  return out;
}

function speed(): void {
  console.log('\n=== matching speed on a SYNTHETIC catalogue (generated names; timing only) ===');
  for (const products of [10_000, 40_000]) {
    const listings = syntheticCatalogue(products);
    const t0 = performance.now();
    const features = listings.map((l) => listingFeatures(l));
    const t1 = performance.now();
    const edges = proposeLinks(features);
    const t2 = performance.now();
    const groups = groupLinks(features, edges);
    const t3 = performance.now();
    console.log(`  ${listings.length} listings: features ${((t1 - t0) / 1000).toFixed(2)} s, proposals ${((t2 - t1) / 1000).toFixed(2)} s, groups ${((t3 - t2) / 1000).toFixed(2)} s (${edges.length} proposals, ${groups.length} groups)`);
  }
}

await qualityOnRealData();
speed();
