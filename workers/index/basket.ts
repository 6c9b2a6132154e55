/**
 * Copies the basket file (src/domain/basket-items.json, validated by src/domain/basket.ts) into the
 * database tables basket_group and basket_item, which the API and the index read. Idempotent: run at
 * the start of every basket-matching and index run; writes only rows that differ; items no longer
 * in the file are marked inactive (their matches and history stay).
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import { groupId, loadBasket, type Basket } from '../../src/domain/basket.js';

/** What {@link syncBasket} changed. */
export interface BasketSyncReport {
  groups: number;
  items: number;
  /** Rows inserted or updated (0 when the tables already matched the file). */
  changed: number;
  /** Items marked inactive because the file no longer has them. */
  retired: number;
  /** Digest of the basket's weights, bases and groups (what the index depends on). */
  digest: string;
}

/**
 * The digest of what the index computation depends on: each item's id, code, group, weight, basis
 * (`per_unit`) and observability, and each group's weight. Keywords and specs do not enter it
 * (they change matches, which are versioned by their own valid_from/valid_to).
 */
export function basketDigest(basket: Basket): string {
  const h = crypto.createHash('sha256');
  for (const g of basket.groups) h.update(`g|${g.code}|${g.weight}|${g.observable}\n`);
  for (const i of [...basket.items].sort((a, b) => a.id - b.id)) h.update(`i|${i.id}|${i.code}|${i.group}|${i.weight}|${i.per_unit}|${i.observable}\n`);
  return h.digest('hex').slice(0, 16);
}

/**
 * Upserts the basket into basket_group / basket_item inside the caller's transaction (`client`).
 * @throws BasketError when the file is invalid (nothing is written).
 */
export async function syncBasket(client: pg.PoolClient | pg.Pool, basket: Basket = loadBasket()): Promise<BasketSyncReport> {
  let changed = 0;
  for (const g of basket.groups) {
    const r = await client.query(
      `INSERT INTO basket_group (id, code, name, weight, observable, series_ref) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO UPDATE SET code = EXCLUDED.code, name = EXCLUDED.name, weight = EXCLUDED.weight,
         observable = EXCLUDED.observable, series_ref = EXCLUDED.series_ref
       WHERE (basket_group.code, basket_group.name, basket_group.weight, basket_group.observable, basket_group.series_ref)
         IS DISTINCT FROM (EXCLUDED.code, EXCLUDED.name, EXCLUDED.weight, EXCLUDED.observable, EXCLUDED.series_ref)`,
      [groupId(g.code), g.code, g.name, g.weight, g.observable, g.series_ref],
    );
    changed += r.rowCount ?? 0;
  }
  const items = basket.items;
  const r = await client.query(
    `INSERT INTO basket_item (id, code, official_code, name, group_id, weight, spec, per_unit, unit, qty, qty_min, qty_max, kind, keywords, exclusions, active)
     SELECT x.id, x.code, x.official_code, x.name, x.group_id, x.weight, x.spec, x.per_unit, x.unit, x.qty, x.qty_min, x.qty_max, x.kind,
            ARRAY(SELECT jsonb_array_elements_text(x.keywords)), ARRAY(SELECT jsonb_array_elements_text(x.exclusions)), true
       FROM jsonb_to_recordset($1::jsonb) AS x(id int, code text, official_code boolean, name text, group_id int, weight float8, spec text,
            per_unit boolean, unit text, qty float8, qty_min float8, qty_max float8, kind text, keywords jsonb, exclusions jsonb)
     ON CONFLICT (id) DO UPDATE SET code = EXCLUDED.code, official_code = EXCLUDED.official_code, name = EXCLUDED.name,
       group_id = EXCLUDED.group_id, weight = EXCLUDED.weight, spec = EXCLUDED.spec, per_unit = EXCLUDED.per_unit, unit = EXCLUDED.unit,
       qty = EXCLUDED.qty, qty_min = EXCLUDED.qty_min, qty_max = EXCLUDED.qty_max, kind = EXCLUDED.kind, keywords = EXCLUDED.keywords,
       exclusions = EXCLUDED.exclusions, active = true
     WHERE (basket_item.code, basket_item.official_code, basket_item.name, basket_item.group_id, basket_item.weight, basket_item.spec,
            basket_item.per_unit, basket_item.unit, basket_item.qty, basket_item.qty_min, basket_item.qty_max, basket_item.kind,
            basket_item.keywords, basket_item.exclusions, basket_item.active)
       IS DISTINCT FROM (EXCLUDED.code, EXCLUDED.official_code, EXCLUDED.name, EXCLUDED.group_id, EXCLUDED.weight, EXCLUDED.spec,
            EXCLUDED.per_unit, EXCLUDED.unit, EXCLUDED.qty, EXCLUDED.qty_min, EXCLUDED.qty_max, EXCLUDED.kind,
            EXCLUDED.keywords, EXCLUDED.exclusions, true)`,
    [
      JSON.stringify(
        items.map((i) => ({
          id: i.id, code: i.code, official_code: i.official_code, name: i.name, group_id: groupId(i.group), weight: i.weight, spec: i.spec,
          per_unit: i.per_unit, unit: i.unit, qty: i.qty, qty_min: i.qty_min, qty_max: i.qty_max, kind: i.kind, keywords: i.keywords, exclusions: i.exclusions,
        })),
      ),
    ],
  );
  changed += r.rowCount ?? 0;
  const retired = await client.query(`UPDATE basket_item SET active = false WHERE active AND NOT (id = ANY($1::int[]))`, [items.map((i) => i.id)]);
  return { groups: basket.groups.length, items: items.length, changed, retired: retired.rowCount ?? 0, digest: basketDigest(basket) };
}
