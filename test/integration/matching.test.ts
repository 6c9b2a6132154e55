/**
 * The matching worker and the curators' commands against a real PostgreSQL (workers/match).
 *
 * Data: the real test data of test/helpers/prices.ts (Woolworths and PAK'nSAVE listings of
 * full_results.csv, the Woolworths price log and product sample, one product linked by hand), plus
 * a few SYNTHETIC national observations made here, because the real data holds no barcode or
 * product id shared by two chains: a New World listing carrying the barcode of the real Woolworths
 * carrots (written with a leading zero), a New World listing under PAK'nSAVE's real product id of
 * the Silver Fern Farms burgers, and two Pams listings sharing a made-up GTIN. Their names, prices
 * and codes are this test's inventions.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { seedRealPrices, type Seeded } from '../helpers/prices.js';
import { ingest } from '../../workers/ingest/ingest.js';
import { runMatching } from '../../workers/match/match.js';
import { LinkCommandError, linkHistory, linkListing, setLocked, unlinkListing } from '../../workers/match/admin.js';
import { DEFAULT_THRESHOLD } from '../../src/domain/matching.js';
import { productAlternatives } from '../../src/services/products.js';

const run = promisify(execFile);

/** SYNTHETIC national observations (see the file comment). */
const SYNTHETIC_DAY = '2026-08-04';
const SYNTHETIC = [
  { retailer: 'newworld', external_id: 'SYN-CARROTS-1KG', name: 'Carrots Bag', size_text: '1kg', gtin: '09414742351053', price: 229 },
  { retailer: 'newworld', external_id: '5329042-EA-000', name: 'Honest Beef Burgers With Smokey Caramelised Onion', size_text: '500g', price: 1499 },
  { retailer: 'newworld', external_id: 'SYN-PAMS-1', name: 'Pams Peanut Butter Crunchy', size_text: '380g', gtin: '96385074', price: 349 },
  { retailer: 'paknsave', external_id: 'SYN-PAMS-2', name: 'Peanut Butter Crunchy', size_text: '380g', gtin: '96385074', price: 329 },
];

interface State {
  listings: unknown[];
  products: unknown[];
  generics: unknown[];
  decisions: { n: number; max: string | null };
}

async function state(db: TestDatabase): Promise<State> {
  const listings = (await db.pool.query(
    'SELECT id, product_id, link_method, link_confidence, link_locked, linked_at, qty, unit, pack_count, weighable, generic_id FROM listing ORDER BY id',
  )).rows;
  const generics = (await db.pool.query('SELECT * FROM generic ORDER BY id')).rows;
  const products = (await db.pool.query('SELECT * FROM product ORDER BY id')).rows;
  const d = (await db.pool.query<{ n: number; max: string | null }>('SELECT count(*)::int AS n, max(id)::text AS max FROM link_decision')).rows[0];
  return { listings, products, generics, decisions: d };
}

describe('matching worker', () => {
  let db: TestDatabase;
  let seeded: Seeded;
  const id = (key: string) => {
    const v = seeded.listingIds.get(key);
    if (v === undefined) throw new Error(`no listing ${key}`);
    return v;
  };
  const row = async (listingId: number) =>
    (await db.pool.query('SELECT product_id, link_method, link_confidence, link_locked FROM listing WHERE id = $1', [listingId])).rows[0] as {
      product_id: number | null; link_method: string | null; link_confidence: number | null; link_locked: boolean;
    };

  beforeAll(async () => {
    db = await createTestDatabase('matching');
    seeded = await seedRealPrices(db.pool);
    await ingest(
      db.pool,
      SYNTHETIC.map((r, i) => ({ line: i + 2, record: { day: SYNTHETIC_DAY, store: '', ...r } })),
      { mode: 'changes', source: 'matching.test.ts (synthetic)', progress: false },
    );
    const { rows } = await db.pool.query<{ slug: string; external_id: string; id: number }>(
      'SELECT r.slug, l.external_id, l.id FROM listing l JOIN retailer r ON r.id = l.retailer_id',
    );
    seeded.listingIds = new Map(rows.map((r) => [`${r.slug}:${r.external_id}`, r.id]));
  });
  afterAll(async () => db?.drop());

  it('links by GTIN across chains (leading zeros ignored), by shared Foodstuffs id, and by name', async () => {
    const r = await runMatching(db.pool, { progress: false });
    expect(r.dryRun).toBe(false);
    expect(r.threshold).toBe(DEFAULT_THRESHOLD);

    const carrotsWw = await row(id('woolworths:135344'));
    const carrotsNw = await row(id('newworld:SYN-CARROTS-1KG'));
    expect(carrotsWw).toMatchObject({ link_method: 'gtin', link_confidence: 1, link_locked: false });
    expect(carrotsNw.product_id).toBe(carrotsWw.product_id);

    const burgersWw = await row(id('woolworths:927566'));
    const burgersPns = await row(id('paknsave:5329042-EA-000'));
    const burgersNw = await row(id('newworld:5329042-EA-000'));
    expect(burgersPns).toMatchObject({ link_method: 'retailer_id', link_confidence: 0.99 });
    expect(burgersNw).toMatchObject({ link_method: 'retailer_id', link_confidence: 0.99 });
    expect(burgersWw.link_method).toBe('name');
    expect(burgersWw.link_confidence).toBeGreaterThanOrEqual(DEFAULT_THRESHOLD);
    expect(burgersWw.link_confidence).toBeLessThanOrEqual(1);
    // The fixture's hand-made product is reused, not duplicated.
    expect(new Set([burgersWw.product_id, burgersPns.product_id, burgersNw.product_id])).toEqual(new Set([seeded.productId]));

    const { rows: products } = await db.pool.query('SELECT id, name, brand, size_text, gtin::text AS gtin, brand_owner, brand_parent FROM product ORDER BY id');
    expect(products.find((p) => p.id === seeded.productId)).toMatchObject({
      name: 'Silver Fern Farms Honest Beef Burgers With Smokey Caramelised Onion 500g', brand: 'Silver Fern Farms', size_text: '500g', brand_owner: null,
    });
    expect(products.find((p) => p.id === carrotsWw.product_id)).toMatchObject({ gtin: '9414742351053', brand: null });
    const pams = await row(id('newworld:SYN-PAMS-1'));
    expect(products.find((p) => p.id === pams.product_id)).toMatchObject({ brand: 'Pams', brand_owner: 'newworld', brand_parent: null, name: 'Pams Peanut Butter Crunchy 380g' });

    // Every name link is at or above the threshold; every decision is logged once.
    const { rows: names } = await db.pool.query<{ link_confidence: number }>("SELECT link_confidence FROM listing WHERE link_method = 'name'");
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) expect(n.link_confidence).toBeGreaterThanOrEqual(DEFAULT_THRESHOLD);
    const { rows: log } = await db.pool.query("SELECT listing_id, action, method, actor, detail FROM link_decision ORDER BY id");
    expect(log.length).toBe(r.changes.link + r.changes.relink + r.changes.unlink + r.changes.update);
    expect(log.every((d) => d.actor === 'matcher')).toBe(true);
    expect(log.find((d) => d.listing_id === id('woolworths:927566'))).toMatchObject({ action: 'update', method: 'name' });
    expect(log.find((d) => d.listing_id === id('woolworths:135344'))).toMatchObject({ action: 'link', method: 'gtin', detail: { gtin: '09414742351053' } });
    // No product is left without listings; search must rewrite every relinked listing.
    expect((await db.pool.query('SELECT 1 FROM product p WHERE NOT EXISTS (SELECT 1 FROM listing l WHERE l.product_id = p.id)')).rowCount).toBe(0);
    expect(r.listingIds).toEqual(expect.arrayContaining([id('woolworths:135344'), id('newworld:SYN-CARROTS-1KG')]));
  });

  it('re-running changes nothing: listings, products and the decision log stay as they are', async () => {
    const before = await state(db);
    const r = await runMatching(db.pool, { progress: false });
    expect(r.changes).toEqual({ link: 0, relink: 0, unlink: 0, update: 0 });
    expect(r.products).toMatchObject({ created: 0, updated: 0, deleted: 0 });
    expect(r.listingIds).toEqual([]);
    expect(r.generics).toMatchObject({ sizes: 0, listings: 0, products: 0 });
    expect(await state(db)).toEqual(before);
  });


  it('respects the threshold: stricter leaves name-linked listings products of their own (logged), the default restores them', async () => {
    const nameLinked = (await db.pool.query<{ id: number }>("SELECT id FROM listing WHERE link_method = 'name' ORDER BY id")).rows.map((r) => r.id);
    const dry = await runMatching(db.pool, { threshold: 1, dryRun: true, progress: false });
    expect(dry.linked.name ?? 0).toBe(0);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM listing WHERE link_method = 'name'")).rows[0].n).toBe(nameLinked.length);

    const strict = await runMatching(db.pool, { threshold: 1, progress: false });
    expect(strict.linked.name ?? 0).toBe(0);
    expect(strict.linked.gtin).toBeGreaterThan(0);
    expect(strict.linked.retailer_id).toBe(2);
    // Every name-linked listing now stands alone (method single, one product each), the decision logged.
    const { rows } = await db.pool.query<{ listing_id: number }>(
      // The member that keeps the group's product is an update (same product, method single); the others move to new products.
      "SELECT DISTINCT listing_id FROM link_decision WHERE action IN ('relink', 'update') AND method = 'single' AND actor = 'matcher' AND listing_id = ANY($1::int[]) ORDER BY listing_id",
      [nameLinked],
    );
    expect(rows.map((r) => r.listing_id)).toEqual(nameLinked);
    const alone = await db.pool.query<{ n: number; products: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT product_id)::int AS products FROM listing WHERE id = ANY($1::int[]) AND link_method = 'single'",
      [nameLinked],
    );
    expect(alone.rows[0]).toEqual({ n: nameLinked.length, products: nameLinked.length });

    await runMatching(db.pool, { progress: false });
    expect((await db.pool.query<{ id: number }>("SELECT id FROM listing WHERE link_method = 'name' ORDER BY id")).rows.map((r) => r.id)).toEqual(nameLinked);
    await expect(runMatching(db.pool, { threshold: 1.5 })).rejects.toThrow(RangeError);
  });

  it("keeps a curator's link and unlink across re-runs, and logs them", async () => {
    const mince = id('paknsave:5349090-EA-000'); // "Beef Mince" 340g: no automatic partner, a product of its own
    const burgers = id('paknsave:5329042-EA-000');
    const own = await row(mince);
    expect(own).toMatchObject({ link_method: 'single', link_confidence: 1, link_locked: false });
    const linked = await linkListing(db.pool, mince, seeded.productId, 'test: curator link');
    expect(linked).toMatchObject({ changed: true, productId: seeded.productId, previousProductId: own.product_id, locked: true });
    // Its product of one listing is gone.
    expect(linked.deletedProductIds).toEqual([own.product_id]);
    // The product is pinned as it was: its three burger listings are locked too.
    const members = (await db.pool.query<{ id: number }>('SELECT id FROM listing WHERE product_id = $1 AND link_locked ORDER BY id', [seeded.productId])).rows.map((r) => r.id);
    expect(members).toEqual([id('woolworths:927566'), id('paknsave:5329042-EA-000'), mince, id('newworld:5329042-EA-000')].sort((a, b) => a - b));
    const unlinked = await unlinkListing(db.pool, burgers);
    expect(unlinked).toMatchObject({ changed: true, productId: null, previousProductId: seeded.productId, locked: true });

    const before = await state(db);
    const r = await runMatching(db.pool, { progress: false });
    expect(await row(mince)).toEqual({ product_id: seeded.productId, link_method: 'manual', link_confidence: 1, link_locked: true });
    expect(await row(burgers)).toEqual({ product_id: null, link_method: 'manual', link_confidence: 1, link_locked: true });
    expect(r.locked).toBe(4);
    expect(r.changes).toEqual({ link: 0, relink: 0, unlink: 0, update: 0 });
    // The rest of the product stays on it, without the unlinked listing.
    expect((await row(id('newworld:5329042-EA-000'))).product_id).toBe(seeded.productId);
    expect((await row(id('woolworths:927566'))).product_id).toBe(seeded.productId);

    const again = await state(db);
    await runMatching(db.pool, { progress: false });
    expect(await state(db)).toEqual(again);
    expect(before.decisions.n).toBeLessThanOrEqual(again.decisions.n);

    const history = await linkHistory(db.pool, mince);
    expect(history.map((h) => [h.action, h.actor, h.method, h.locked])).toEqual([
      ['link', 'matcher', 'single', false],
      ['relink', 'curator', 'manual', true],
    ]);
    expect(history[1].detail).toMatchObject({ command: 'link', note: 'test: curator link' });
    // Repeating a command changes and logs nothing.
    expect((await unlinkListing(db.pool, burgers)).changed).toBe(false);
    expect((await linkHistory(db.pool, burgers)).filter((h) => h.actor === 'curator').map((h) => h.action)).toEqual(['lock', 'unlink']);
  });

  it('lock pins an automatic link; unlock hands it back to the matcher', async () => {
    // Hand the burgers back to the matcher first (the previous test pinned them).
    for (const key of ['woolworths:927566', 'newworld:5329042-EA-000', 'paknsave:5349090-EA-000']) await setLocked(db.pool, id(key), false);
    await unlinkListing(db.pool, id('paknsave:5349090-EA-000'));
    await setLocked(db.pool, id('paknsave:5349090-EA-000'), false);
    await runMatching(db.pool, { progress: false });
    const ww = id('woolworths:927566');
    const before = await row(ww);
    expect(before.link_method).toBe('name');
    expect((await setLocked(db.pool, ww, true)).changed).toBe(true);
    await runMatching(db.pool, { threshold: 1, progress: false });
    expect(await row(ww)).toEqual({ ...before, link_locked: true });
    expect((await setLocked(db.pool, ww, false)).changed).toBe(true);
    await runMatching(db.pool, { threshold: 1, progress: false });
    expect(await row(ww)).toMatchObject({ link_method: 'single', link_locked: false });
    await runMatching(db.pool, { progress: false });
    expect(await row(ww)).toMatchObject({ link_method: 'name', link_locked: false });
    expect((await linkHistory(db.pool, ww)).map((h) => h.action)).toEqual(expect.arrayContaining(['lock', 'unlock']));
  });

  it('link <id> new creates a product from the listing; a product left without listings is removed', async () => {
    const leeks = id('paknsave:5039985-EA-000');
    const r = await linkListing(db.pool, leeks, 'new');
    expect(r.createdProductId).not.toBeNull();
    const product = (await db.pool.query('SELECT name, size_text FROM product WHERE id = $1', [r.createdProductId])).rows[0];
    expect(product).toEqual({ name: 'Leeks', size_text: 'ea' });
    await runMatching(db.pool, { progress: false });
    expect((await row(leeks)).product_id).toBe(r.createdProductId);
    const u = await unlinkListing(db.pool, leeks);
    expect(u.deletedProductIds).toEqual([r.createdProductId]);
    expect((await db.pool.query('SELECT 1 FROM product WHERE id = $1', [r.createdProductId])).rowCount).toBe(0);
  });

  it('refuses unknown listings and products without writing anything', async () => {
    const before = await state(db);
    await expect(linkListing(db.pool, 99_999_999, 'new')).rejects.toThrow(LinkCommandError);
    await expect(linkListing(db.pool, id('paknsave:5039985-EA-000'), 99_999_999)).rejects.toThrow(/no product/);
    await expect(unlinkListing(db.pool, 99_999_999)).rejects.toThrow(/no listing/);
    await expect(setLocked(db.pool, 0, true)).rejects.toThrow(LinkCommandError);
    expect(await state(db)).toEqual(before);
  });

  it('keeps the decision log append-only', async () => {
    await expect(db.pool.query('UPDATE link_decision SET actor = actor')).rejects.toThrow(/append-only/);
    await expect(db.pool.query('DELETE FROM link_decision')).rejects.toThrow(/append-only/);
  });

  it('the CLI runs match and the curator commands (exit codes, output)', async () => {
    const url = new URL(ADMIN_URL);
    url.pathname = `/${(await db.pool.query<{ d: string }>('SELECT current_database() AS d')).rows[0].d}`;
    const env = { ...process.env, DATABASE_URL: url.toString(), ELASTICSEARCH_URL: '' };
    const cli = (args: string[]) => run('npx', ['tsx', 'workers/cli.ts', ...args], { env, cwd: new URL('../..', import.meta.url).pathname });
    const m = await cli(['match', '--dry-run']);
    expect(m.stdout).toMatch(/^matching \(dry run, nothing written\): \{/m);
    const lock = await cli(['unlock', String(id('paknsave:5039985-EA-000'))]);
    expect(JSON.parse(lock.stdout)).toMatchObject({ changed: true, locked: false });
    const bad = await cli(['unlink', 'abc']).catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 1 });
    expect((bad as { stderr: string }).stderr).toMatch(/listing id must be a positive integer/);
    const missing = await cli(['link', '99999999', 'new']).catch((e: { code: number; stderr: string }) => e);
    expect(missing).toMatchObject({ code: 1 });
    expect((missing as { stderr: string }).stderr).toMatch(/error: no listing 99999999/);
  });
  it('parses sizes and gives listings and products their generic; alternatives share it, cheapest first', async () => {
    const listing = async (key: string) =>
      (await db.pool.query(
        `SELECT l.qty, l.unit, l.pack_count, l.weighable, g.label, g.key, k.slug, k.compare_unit
         FROM listing l LEFT JOIN generic g ON g.id = l.generic_id LEFT JOIN kind k ON k.id = g.kind_id WHERE l.id = $1`,
        [id(key)],
      )).rows[0];
    expect(await listing('paknsave:5329042-EA-000')).toEqual({
      qty: 500, unit: 'g', pack_count: 1, weighable: false, label: 'Burger patties, beef, 500 g', key: 'burger-patties|beef|500 g',
      slug: 'burger-patties', compare_unit: 'kg',
    });
    expect(await listing('newworld:SYN-CARROTS-1KG')).toMatchObject({ label: 'Carrots, standard, 1 kg', slug: 'carrots' });
    // Peanut butter is a kind of its own, never butter.
    expect(await listing('newworld:SYN-PAMS-1')).toMatchObject({ qty: 380, unit: 'g', label: 'Peanut butter, crunchy, 380 g', slug: 'peanut-butter' });
    const productGeneric = async (productId: number) =>
      (await db.pool.query('SELECT g.label FROM product p LEFT JOIN generic g ON g.id = p.generic_id WHERE p.id = $1', [productId])).rows[0].label;
    // Earlier tests' curator commands moved some burgers listings: take any that is still linked.
    const burgers = (await db.pool.query<{ product_id: number }>(
      'SELECT product_id FROM listing WHERE id = ANY($1::int[]) AND product_id IS NOT NULL ORDER BY id LIMIT 1',
      [[id('paknsave:5329042-EA-000'), id('newworld:5329042-EA-000'), id('woolworths:927566')]],
    )).rows[0]?.product_id ?? null;
    expect(burgers).not.toBeNull();
    expect(await productGeneric(burgers)).toBe('Burger patties, beef, 500 g');

    // The carrots' alternatives: every other product of "Carrots, standard, 1 kg" (the real 1 kg
    // bags of the other chains are products of their own), cheapest current shelf price first.
    const carrots = (await row(id('newworld:SYN-CARROTS-1KG'))).product_id!;
    const { rows: expected } = await db.pool.query<{ id: number; price: number | null }>(
      `SELECT p.id, (SELECT min(s.price) FROM listing l JOIN national_price_span s ON s.listing_id = l.id AND s.last_day IS NULL
                     WHERE l.product_id = p.id AND l.available) AS price
       FROM product p JOIN product me ON me.generic_id = p.generic_id WHERE me.id = $1 AND p.id <> me.id
       ORDER BY price NULLS LAST, p.name, p.id LIMIT 16`,
      [carrots],
    );
    expect(expected.length).toBeGreaterThan(0);
    const alt = await productAlternatives(db.pool, [carrots, burgers]);
    expect(alt.get(carrots)!.map((a) => [a.id, a.price])).toEqual(expected.map((r) => [r.id, r.price]));
    expect(alt.get(carrots)!.every((a) => a.retailer !== null && a.retailers >= 1)).toBe(true);
    // The burgers' alternatives: the other products of their generic, never themselves.
    const { rows: sameGeneric } = await db.pool.query<{ id: number }>(
      'SELECT p.id FROM product p JOIN product me ON me.generic_id = p.generic_id WHERE me.id = $1 AND p.id <> me.id ORDER BY p.id',
      [burgers],
    );
    expect(alt.get(burgers)!.map((x) => x.id).sort((x, y) => x - y)).toEqual(sameGeneric.map((r) => r.id));
  });
});
