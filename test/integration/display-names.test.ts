/**
 * Shopper-facing names on the real data (issue 28 item 4: a product named just "Cereal"
 * (Weet-Bix) and lower-case listing names are what a shopper sees). The run's one import of
 * ../shared/data (test/helpers/real-data.ts) and a matching run, then:
 *
 * - listings carry the shop's own display name exactly as the shop gives it — the Woolworths
 *   catalogue's `name` column (lower case: the data holds no cased name for it, which is checked
 *   here too) and the Foodstuffs samples' cased names;
 * - products are named by src/domain/display-names.ts productDisplayName (brand + name + size),
 *   every one of them, with the issue's examples.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../helpers/db.js';
import { DATA_DIR } from '../helpers/db.js';
import { createRealDataDatabase } from '../helpers/real-data.js';
import { runMatching } from '../../workers/match/match.js';
import { readCatalogue } from '../../workers/import/catalogue.js';
import { isCased, productDisplayName } from '../../src/domain/display-names.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createRealDataDatabase('display_names');
  await runMatching(db.pool);
}, 300_000);

afterAll(async () => {
  await db?.drop();
});

/** The product name of a listing given by chain and the chain's own id. */
async function productName(retailer: string, externalId: string): Promise<string> {
  const { rows } = await db.pool.query<{ name: string }>(
    `SELECT p.name FROM listing l JOIN retailer r ON r.id = l.retailer_id JOIN product p ON p.id = l.product_id
     WHERE r.slug = $1 AND l.external_id = $2`,
    [retailer, externalId],
  );
  expect(rows, `${retailer}:${externalId}`).toHaveLength(1);
  return rows[0].name;
}

describe('listing names: the shop’s own, as the shop gives them', () => {
  it('every Woolworths catalogue listing is named by the catalogue’s name column, which has no capitals', async () => {
    const { rows: catalogue } = readCatalogue(path.join(DATA_DIR, 'neon-ninja--woolies', 'products.columns.tsv'));
    expect(catalogue.length).toBe(17_664);
    // The data has no cased display name for Woolworths: not one name or brand with a capital.
    expect(catalogue.filter((r) => /\p{Lu}/u.test(r.name) || /\p{Lu}/u.test(r.brand ?? '')).length).toBe(0);
    const { rows } = await db.pool.query<{ external_id: string; name: string }>(
      `SELECT l.external_id, l.name FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug = 'woolworths'`,
    );
    const byId = new Map(rows.map((r) => [r.external_id, r.name]));
    const differing = catalogue.filter((r) => byId.get(r.sku) !== r.name);
    expect(differing.map((r) => r.sku)).toEqual([]);
    expect(byId.get('148425')).toBe('l & p soft drink lemon & paeroa');
  });

  it('the Foodstuffs samples keep their cased names as written', async () => {
    const { rows } = await db.pool.query<{ name: string }>(
      `SELECT l.name FROM listing l JOIN retailer r ON r.id = l.retailer_id WHERE r.slug IN ('paknsave', 'newworld')`,
    );
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.filter((r) => isCased(r.name)).length / rows.length).toBeGreaterThan(0.9);
    expect(rows.map((r) => r.name)).toContain('Honest Beef Burgers With Smokey Caramelised Onion');
  });
});

describe('product names: brand + name + size', () => {
  it('names the issue’s examples as a shopper recognises them', async () => {
    // Was "Cereal".
    expect(await productName('woolworths', '885704')).toBe('Weet-Bix Cereal 1.2kg');
    // Was "Cereal Wildberry": the curated brand begins the brand field "sanitarium weet-bix bites".
    expect(await productName('woolworths', '319428')).toBe('Weet-Bix Bites Cereal Wildberry 500g');
    // Was "Soft Drink Lemon Paeroa": the brand stays as the shop writes it (no casing is known).
    expect(await productName('woolworths', '148425')).toBe('l & p Soft Drink Lemon & Paeroa 1.5L');
    // Unbranded produce sold by weight: what it is, no per-kg "size".
    expect(await productName('woolworths', '133211')).toBe('Bananas Yellow Loose');
    // Linked across chains: PAK'nSAVE's cased name after the brand.
    expect(await productName('paknsave', '5329042-EA-000')).toBe('Silver Fern Farms Honest Beef Burgers With Smokey Caramelised Onion 500g');
    expect(await productName('woolworths', '927566')).toBe('Silver Fern Farms Honest Beef Burgers With Smokey Caramelised Onion 500g');
    expect(await productName('paknsave', '5015054-EA-000')).toBe("Wattie's Crushed & Sieved Tomatoes 400g");
  });

  it('every product is named by the rule from its listings, and none with a brand is one bare word', async () => {
    const { rows } = await db.pool.query<{
      product_id: number; product: string; size_text: string | null; id: number; retailer: string; name: string; brand: string | null;
      listing_size: string | null; weighable: boolean; placeholder: boolean;
    }>(
      `SELECT p.id AS product_id, p.name AS product, p.size_text, l.id, r.slug AS retailer, l.name, l.brand, l.size_text AS listing_size, l.weighable,
              l.name = r.name || ' item ' || l.external_id AS placeholder
       FROM product p JOIN listing l ON l.product_id = p.id JOIN retailer r ON r.id = l.retailer_id ORDER BY p.id, l.id`,
    );
    const products = new Map<number, typeof rows>();
    for (const r of rows) products.set(r.product_id, [...(products.get(r.product_id) ?? []), r]);
    expect(products.size).toBeGreaterThan(17_000);
    const wrong: string[] = [];
    let bare = 0;
    for (const [id, ls] of products) {
      const want = productDisplayName(
        ls.map((l) => ({ id: l.id, retailer: l.retailer, name: l.name, brand: l.brand, sizeText: l.listing_size, weighable: l.weighable })),
        new Set(ls.filter((l) => l.placeholder).map((l) => l.id)),
        { sizeText: ls[0].size_text },
      );
      if (ls[0].product !== want) wrong.push(`${id}: ${ls[0].product} ≠ ${want}`);
      if (!ls[0].product.includes(' ') && ls.some((l) => l.brand && !/^fresh\b/.test(l.brand))) bare += 1;
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(bare).toBe(0);
  });
});
