/**
 * Listing documents for the Elasticsearch index, read from PostgreSQL (the source of truth):
 * keyset batches for a full reindex, or a set of ids for an incremental update.
 *
 * `last_seen` is the listing's last seen day (`lastSeen` of src/domain/listings.ts, in SQL
 * `listingLastSeenSql` of src/services/span-sql.ts, as "recently seen" in src/services/search.ts).
 * It is exact when a document is written; a listing
 * whose open span merely runs on (not mentioned in a 'changes' collection) keeps the older value
 * until it is next touched or reindexed. Nothing ranks on it.
 */
import type pg from 'pg';
import { groupKey } from '../../src/domain/search-results.js';
import { categoryNodes, type ListingDocument } from '../../src/search/elasticsearch/mapping.js';
import { latestNationalSpanJoin, listingLastSeenSql } from '../../src/services/span-sql.js';

interface Row {
  id: number;
  retailer_id: number;
  retailer: string;
  retailer_name: string;
  product_id: number | null;
  product_name: string | null;
  name: string;
  brand: string | null;
  size_text: string | null;
  category_path: string[] | null;
  gtin: string | null;
  kind_label: string | null;
  available: boolean;
  first_seen: string;
  last_seen: string;
}

const SELECT = `SELECT l.id, l.retailer_id, r.slug AS retailer, r.name AS retailer_name, l.product_id, p.name AS product_name,
    l.name, l.brand, l.size_text, l.category_path, l.gtin::text AS gtin, k.label AS kind_label, l.available,
    l.first_seen::text AS first_seen, (${listingLastSeenSql('l', 'latest')})::text AS last_seen
  FROM listing l
  JOIN retailer r ON r.id = l.retailer_id
  LEFT JOIN product p ON p.id = l.product_id
  LEFT JOIN generic g ON g.id = l.generic_id
  LEFT JOIN kind k ON k.id = g.kind_id
  ${latestNationalSpanJoin('l', 'r', 'latest')}`;

/** The document of one row (empty strings of optional text become null). */
function toDocument(r: Row): ListingDocument {
  const path = (r.category_path ?? []).filter((c) => c.trim() !== '');
  return {
    id: r.id,
    retailer_id: r.retailer_id,
    retailer: r.retailer,
    retailer_name: r.retailer_name,
    product_id: r.product_id,
    product_name: r.product_name,
    group_key: groupKey(r.id, r.product_id),
    name: r.name,
    brand: r.brand?.trim() || null,
    size_text: r.size_text?.trim() || null,
    category_path: path,
    category_nodes: categoryNodes(path),
    gtin: r.gtin,
    kind_label: r.kind_label,
    available: r.available,
    first_seen: r.first_seen,
    last_seen: r.last_seen,
  };
}

/** How many listings a full reindex writes. */
export async function countListings(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM listing');
  return Number(rows[0].n);
}

/**
 * Every listing's document, in id order, read in keyset batches of `batchSize` rows (one query
 * per batch, no long-lived cursor or transaction).
 * @throws the database error of a failing batch (the iteration stops there).
 */
export async function* listingDocuments(pool: pg.Pool, batchSize = 2000): AsyncGenerator<ListingDocument> {
  let after = 0;
  for (;;) {
    const { rows } = await pool.query<Row>(`${SELECT} WHERE l.id > $1 ORDER BY l.id LIMIT $2`, [after, batchSize]);
    for (const r of rows) yield toDocument(r);
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1].id;
  }
}

/** The documents of the listings `ids` that exist (in id order); missing ids are simply absent. */
export async function documentsByIds(pool: pg.Pool, ids: readonly number[]): Promise<ListingDocument[]> {
  if (ids.length === 0) return [];
  const { rows } = await pool.query<Row>(`${SELECT} WHERE l.id = ANY($1::int[]) ORDER BY l.id`, [ids]);
  return rows.map(toDocument);
}
