/**
 * Sizes and generics of listings and products (issue 5), run by the matching worker in its own
 * transaction after the links are written (workers/match/match.ts), so every ingest, import and
 * curator command leaves them current.
 *
 * 1. Each listing's size text is parsed (src/domain/sizes.ts) into `qty` (one item, in `unit`),
 *    `unit` (g, ml, each, m), `pack_count`; `weighable` is set when it is sold per kilogram.
 * 2. Each listing is classified (src/domain/kinds.ts) into a kind, variant and size: its generic.
 *    The curated kinds are written to `kind` (with the leaf shelf each sits on, src/domain/shelves.ts
 *    `shelfOfKind`: `shelf_slug`, `shelf_label`), generics to `generic` (one per key), and
 *    `listing.generic_id` is set.
 * 3. A product's generic is the one most of its listings have (ties: the lowest generic key), or
 *    null when none has one.
 * Only what differs is written; a run over unchanged data writes nothing. Generics no listing or
 * product uses any more are removed.
 */
import type pg from 'pg';
import { classify, KINDS } from '../../src/domain/kinds.js';
import { shelfOfKind } from '../../src/domain/shelves.js';
import { parseSize } from '../../src/domain/sizes.js';

/** What {@link assignGenerics} changed. */
export interface GenericsReport {
  /** Listings with a generic after the run. */
  classified: number;
  /** Listings whose parsed size (qty, unit, pack_count, weighable) was rewritten. */
  sizes: number;
  /** Listings and products whose generic changed. */
  listings: number;
  products: number;
  /** Generics in use after the run. */
  generics: number;
}

interface Row {
  id: number;
  name: string;
  brand: string | null;
  size_text: string | null;
  category_path: string[];
  qty: number | null;
  unit: string | null;
  pack_count: number | null;
  weighable: boolean;
  generic_id: number | null;
}

const BATCH = 5000;

/**
 * Parses sizes and assigns generics on `client`, inside the caller's transaction (see the module
 * comment). @throws the database's error; the caller rolls back.
 */
export async function assignGenerics(client: pg.PoolClient): Promise<GenericsReport> {
  // Kinds: the curated list with each kind's leaf shelf (every kind sits on exactly one), written when it differs.
  const shelves = KINDS.map((k) => shelfOfKind(k.slug));
  await client.query(
    `INSERT INTO kind (slug, label, compare_unit, shelf_slug, shelf_label)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])
     ON CONFLICT (slug) DO UPDATE SET label = excluded.label, compare_unit = excluded.compare_unit,
       shelf_slug = excluded.shelf_slug, shelf_label = excluded.shelf_label
       WHERE (kind.label, kind.compare_unit, kind.shelf_slug, kind.shelf_label)
         IS DISTINCT FROM (excluded.label, excluded.compare_unit, excluded.shelf_slug, excluded.shelf_label)`,
    [KINDS.map((k) => k.slug), KINDS.map((k) => k.label), KINDS.map((k) => k.compareUnit), shelves.map((s) => s?.slug ?? null), shelves.map((s) => s?.label ?? null)],
  );
  const kindIds = new Map(
    (await client.query<{ id: number; slug: string }>('SELECT id, slug FROM kind')).rows.map((r) => [r.slug, r.id]),
  );

  const sizeUpdates: { id: number; qty: number | null; unit: string | null; pack: number | null; weighable: boolean }[] = [];
  const wanted = new Map<number, string | null>(); // listing id → generic key
  const generics = new Map<string, { kind: string; variant: string | null; size: string | null; label: string }>();
  const current = new Map<number, number | null>();
  let lastId = 0;
  for (;;) {
    const { rows } = await client.query<Row>(
      `SELECT id, name, brand, size_text, category_path, qty, unit, pack_count, weighable, generic_id
       FROM listing WHERE id > $1 ORDER BY id LIMIT ${BATCH}`,
      [lastId],
    );
    if (rows.length === 0) break;
    lastId = rows[rows.length - 1].id;
    for (const r of rows) {
      current.set(r.id, r.generic_id);
      const size = parseSize(r.size_text);
      const next = size
        ? { qty: size.qty, unit: size.unit, pack: size.packCount, weighable: size.perKg }
        : { qty: null, unit: null, pack: null, weighable: r.weighable };
      if (next.qty !== r.qty || next.unit !== r.unit || next.pack !== r.pack_count || next.weighable !== r.weighable) {
        sizeUpdates.push({ id: r.id, ...next });
      }
      const c = classify({ name: r.name, brand: r.brand, sizeText: r.size_text, categoryPath: r.category_path, weighable: next.weighable });
      wanted.set(r.id, c ? c.key : null);
      if (c && !generics.has(c.key)) {
        generics.set(c.key, { kind: c.kind.slug, variant: c.variant, size: c.sizeLabel, label: c.label });
      }
    }
  }

  for (let i = 0; i < sizeUpdates.length; i += BATCH) {
    const part = sizeUpdates.slice(i, i + BATCH);
    await client.query(
      `UPDATE listing l SET qty = u.qty, unit = u.unit, pack_count = u.pack, weighable = u.weighable
       FROM unnest($1::int[], $2::float8[], $3::text[], $4::int[], $5::bool[]) AS u(id, qty, unit, pack, weighable)
       WHERE l.id = u.id`,
      [part.map((u) => u.id), part.map((u) => u.qty), part.map((u) => u.unit), part.map((u) => u.pack), part.map((u) => u.weighable)],
    );
  }

  // Generics: insert the new keys, relabel changed ones.
  const keys = [...generics.keys()].sort();
  await client.query(
    `INSERT INTO generic (kind_id, key, variant, size, label)
     SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[])
     ON CONFLICT (key) DO UPDATE SET label = excluded.label WHERE generic.label IS DISTINCT FROM excluded.label`,
    [
      keys.map((k) => kindIds.get(generics.get(k)!.kind)!),
      keys,
      keys.map((k) => generics.get(k)!.variant),
      keys.map((k) => generics.get(k)!.size),
      keys.map((k) => generics.get(k)!.label),
    ],
  );
  const genericIds = new Map(
    (await client.query<{ id: number; key: string }>('SELECT id, key FROM generic WHERE key = ANY($1::text[])', [keys])).rows.map((r) => [r.key, r.id]),
  );

  const listingUpdates: { id: number; generic: number | null }[] = [];
  for (const [id, key] of wanted) {
    const g = key === null ? null : genericIds.get(key)!;
    if (g !== current.get(id)) listingUpdates.push({ id, generic: g });
  }
  for (let i = 0; i < listingUpdates.length; i += BATCH) {
    const part = listingUpdates.slice(i, i + BATCH);
    await client.query(
      `UPDATE listing l SET generic_id = u.generic FROM unnest($1::int[], $2::int[]) AS u(id, generic) WHERE l.id = u.id`,
      [part.map((u) => u.id), part.map((u) => u.generic)],
    );
  }

  // Products: the generic most of their listings have.
  const products = await client.query(
    `WITH counts AS (
       SELECT l.product_id, l.generic_id, g.key, count(*) AS n
       FROM listing l JOIN generic g ON g.id = l.generic_id
       WHERE l.product_id IS NOT NULL GROUP BY 1, 2, 3
     ), best AS (
       SELECT DISTINCT ON (product_id) product_id, generic_id FROM counts ORDER BY product_id, n DESC, key
     )
     UPDATE product p SET generic_id = b.generic_id
     FROM product p2 LEFT JOIN best b ON b.product_id = p2.id
     WHERE p.id = p2.id AND p.generic_id IS DISTINCT FROM b.generic_id`,
  );
  await client.query(
    `DELETE FROM generic g WHERE NOT EXISTS (SELECT 1 FROM listing l WHERE l.generic_id = g.id)
       AND NOT EXISTS (SELECT 1 FROM product p WHERE p.generic_id = g.id)`,
  );
  const inUse = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM generic');
  return {
    classified: [...wanted.values()].filter((k) => k !== null).length,
    sizes: sizeUpdates.length,
    listings: listingUpdates.length,
    products: products.rowCount ?? 0,
    generics: inUse.rows[0].n,
  };
}
