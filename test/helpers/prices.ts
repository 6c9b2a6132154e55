/**
 * Test data built from the real files in ../shared/data (never invented prices):
 * - stores: three Woolworths and three PAK'nSAVE Auckland stores from the chains' store lists
 *   (names and coordinates as published; town/area/urban are this test's classification);
 * - a Woolworths national price history: rows of neon-ninja--woolies/price_history.csv (one row
 *   per observed change, 2024-10 → 2025-05), ingested as national observations in 'changes' mode;
 * - one store-level day, 2026-08-03, from Blim3202 full_results.csv (3 + 3 stores);
 * - on that day, at Woolworths Victoria Street West, the Woolworths product-API prices of
 *   products.sample.csv whose sale price is below the original price, as specials (promo_kind 1).
 *   The figures are real; placing them at that store on that day is this fixture's choice.
 * - one product linking the Woolworths and PAK'nSAVE listings of the same Silver Fern Farms burgers
 *   (the link is fixture metadata; products are empty until matching runs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type pg from 'pg';
import { nzDay } from '../../src/domain/days.js';
import { dollarsToCents } from '../../src/domain/money.js';
import { ingestRecords } from './jobs.js';
import type { RawRecord } from '../../workers/ingest/format.js';
import { DATA_DIR } from './db.js';

const BLIM = path.join(DATA_DIR, 'Blim3202--NZ-Meal-Cost-Optimiser', 'data');
const WOOLIES = path.join(DATA_DIR, 'neon-ninja--woolies');

/** The store-level collection day of full_results.csv. */
export const STORE_DAY = '2026-08-03';

/** Store ids (retailer's own) used by the fixture. */
export const WOOLWORTHS_STORES = ['882226', '1906035', '1996677'] as const;
/** PAK'nSAVE Botany, Ormiston, Highland Park. */
export const PAKNSAVE_STORES = [
  '60561e46-ece7-43a7-b142-9b14812586e4',
  '5f167936-79ae-4f6a-b9d2-74afe1bb096b',
  '2a1b331a-fc4a-496a-b072-e97cc8f70cae',
] as const;

/** Woolworths SKUs whose national change history is ingested. */
export const HISTORY_SKUS = ['42246', '71205', '927566', '133211', '281082', '314075', '135344', '149885', '799477'] as const;

/** What the fixture created. */
export interface Seeded {
  /** Database id of each store by the retailer's own id. */
  storeIds: Map<string, number>;
  /** Database id of a listing by `<retailer>:<external id>`. */
  listingIds: Map<string, number>;
  /** The linked product's id. */
  productId: number;
  /** Special prices placed at Woolworths 882226 (external id → [shelf, promo] cents). */
  specials: Map<string, [number, number]>;
}

type Row = Record<string, string>;

function readCsv(file: string): Row[] {
  return parse(fs.readFileSync(file), { columns: true, bom: true, skip_empty_lines: true, relax_quotes: true }) as Row[];
}

/** Inserts the six stores. @returns database id by the retailer's own store id. */
export async function seedStores(pool: pg.Pool): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  const add = async (slug: string, externalId: string, name: string, address: string, region: string | null, lat: string, lng: string) => {
    const { rows } = await pool.query<{ id: number }>(
      `INSERT INTO store (retailer_id, external_id, name, address, region, lat, lng, town, area, urban)
       SELECT id, $2, $3, $4, $5, $6, $7, 'Auckland', 'Auckland', 'major' FROM retailer WHERE slug = $1 RETURNING id`,
      [slug, externalId, name.trim(), address.trim(), region, Number(lat), Number(lng)],
    );
    ids.set(externalId, rows[0].id);
  };
  for (const r of readCsv(path.join(BLIM, 'woolworths_stores.csv'))) {
    if ((WOOLWORTHS_STORES as readonly string[]).includes(r.id)) await add('woolworths', r.id, r.name, r.address, null, r.latitude, r.longitude);
  }
  for (const r of readCsv(path.join(BLIM, 'paknsave_stores.csv'))) {
    if ((PAKNSAVE_STORES as readonly string[]).includes(r.store_id)) {
      await add('paknsave', r.store_id, r.name, r.address, r.region, r.latitude, r.longitude);
    }
  }
  if (ids.size !== 6) throw new Error(`expected 6 stores, found ${ids.size}`);
  return ids;
}

/** National change-log observations (last change per SKU and NZ day), oldest first. */
function historyRecords(products: Map<string, Row>): RawRecord[] {
  const byKey = new Map<string, { day: string; sku: string; price: string }>();
  for (const r of readCsv(path.join(WOOLIES, 'price_history.csv'))) {
    if (!(HISTORY_SKUS as readonly string[]).includes(r.SKU)) continue;
    const day = nzDay(Number(r.timestamp));
    byKey.set(`${r.SKU}|${day}`, { day, sku: r.SKU, price: r.price });
  }
  const rows = [...byKey.values()].sort((a, b) => a.day.localeCompare(b.day) || a.sku.localeCompare(b.sku));
  return rows.map((r, i) => {
    const p = products.get(r.sku);
    return {
      line: i + 2,
      record: {
        day: r.day,
        retailer: 'woolworths',
        store: '',
        external_id: r.sku,
        price: dollarsToCents(r.price),
        ...(p ? { name: p.name.trim(), brand: p.brand, gtin: p.barcode.replace(/^0+/, ''), size_text: p['size.volumeSize'] || null } : {}),
      },
    };
  });
}

/**
 * The store-level day: full_results.csv (first row per store and SKU) plus the specials not already
 * priced there (others are removed from `specials`).
 */
function storeDayRecords(products: Map<string, Row>, specials: Map<string, [number, number]>): RawRecord[] {
  const out: RawRecord[] = [];
  const seen = new Set<string>();
  for (const r of readCsv(path.join(BLIM, 'full_results.csv'))) {
    const key = `${r.store_id}|${r.sku}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({
      line: out.length + 2,
      record: {
        day: r.date_created,
        retailer: r.company === 'Woolworths' ? 'woolworths' : 'paknsave',
        store: r.store_id,
        external_id: r.sku,
        price: dollarsToCents(r.price),
        name: r.returned_ingredient.trim(),
        size_text: r.quantity ? `${r.quantity}${r.measurement_unit}` : r.measurement_unit || null,
        category_path: [r.department, ...r.sub_department.split('|')].filter(Boolean),
      },
    });
  }
  for (const [sku, [shelf, promo]] of specials) {
    // full_results.csv already prices some of these at that store: its row wins, no special.
    if (seen.has(`${WOOLWORTHS_STORES[0]}|${sku}`)) {
      specials.delete(sku);
      continue;
    }
    const p = products.get(sku)!;
    out.push({
      line: out.length + 2,
      record: {
        day: STORE_DAY, retailer: 'woolworths', store: WOOLWORTHS_STORES[0], external_id: sku,
        price: shelf, promo_price: promo, promo_kind: 1, name: p.name.trim(), brand: p.brand,
      },
    });
  }
  return out;
}

/** Seeds stores, the national history, the store day and the linked product. */
export async function seedRealPrices(pool: pg.Pool): Promise<Seeded> {
  const storeIds = await seedStores(pool);
  const products = new Map(readCsv(path.join(WOOLIES, 'products.sample.csv')).map((r) => [r.sku, r]));
  const specials = new Map<string, [number, number]>();
  for (const [sku, p] of products) {
    const shelf = dollarsToCents(p['price.originalPrice']);
    const sale = dollarsToCents(p['price.salePrice']);
    if (sale < shelf && (HISTORY_SKUS as readonly string[]).includes(sku)) specials.set(sku, [shelf, sale]);
  }
  await ingestRecords(pool, historyRecords(products), { mode: 'changes', source: 'price_history.csv' });
  await ingestRecords(pool, storeDayRecords(products, specials), { mode: 'snapshot', source: 'full_results.csv' });

  const { rows } = await pool.query<{ slug: string; external_id: string; id: number }>(
    'SELECT r.slug, l.external_id, l.id FROM listing l JOIN retailer r ON r.id = l.retailer_id',
  );
  const listingIds = new Map(rows.map((r) => [`${r.slug}:${r.external_id}`, r.id]));
  const product = await pool.query<{ id: number }>(
    `INSERT INTO product (name, brand, size_text) VALUES ('Honest Beef Burgers With Smoky Caramelised Onion', 'Silver Fern Farms', '500g') RETURNING id`,
  );
  const productId = product.rows[0].id;
  await pool.query(
    `UPDATE listing SET product_id = $1, link_method = 'name', link_confidence = 0.9, linked_at = now() WHERE id = ANY($2::int[])`,
    [productId, [listingIds.get('woolworths:927566'), listingIds.get('paknsave:5329042-EA-000')]],
  );
  return { storeIds, listingIds, productId, specials };
}
