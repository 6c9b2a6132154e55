/**
 * The type-ahead view of the derived-views worker (issue 19 item 3: "suggestions and 'recently
 * seen' scan per request"): `suggest_term` (every category label of the chains' own paths with its
 * least parent path and listing count, every kind label with its shelf and the listings sharing it, every brand by normalised text with its listing count) and
 * `recent_listing` (each chain's {@link RECENT_PER_CHAIN} most recently seen listings), and (issue 19
 * item 5) `suggest_listing` (every listing without a product, ranked in suggestion order, with its
 * normalised name), `suggest_word` (each word start of their search_name as a key) and
 * `suggest_name` (their normalised names as keys), and (issue 31) `search_word`, the vocabulary of
 * search's spelling correction (src/search/spelling.ts), written in
 * the transaction the orchestrator (workers/views/run.ts) opened.
 *
 * **Exactness.** The rows are what the live queries of src/search/embedded.ts (categories, brands,
 * listings) and src/services/search.ts (recently seen) compute, so the API reads them only while they are
 * current: the view's `view_run.data_version` is the database's data version
 * (src/db/data-version.ts, bumped by every write job) at the end of the run that built or confirmed
 * them ({@link markSuggestCurrent}); any later write moves that version and the API computes live
 * until the next views run rebuilds them (src/search/embedded.ts suggestViewsCurrent).
 */
import type pg from 'pg';
import { latestNationalSpanJoin, listingLastSeenSql } from '../../src/services/span-sql.js';
import { RECENT_PER_CHAIN } from '../../src/services/search.js';
import { kindTermsSql, NAME_KEY_CHARS, WORD_KEY_CHARS } from '../../src/search/embedded.js';
import { buildSearchWords } from '../../src/search/spelling.js';

/**
 * Listings kept per chain in `recent_listing` (src/services/search.ts RECENT_PER_CHAIN): the most
 * ids a no-q search asks for (search_products over-fetches at most 500), so every such search reads
 * a prefix of the rows.
 */
export { RECENT_PER_CHAIN } from '../../src/services/search.js';

/** What {@link buildSuggestViews} wrote. */
export interface SuggestReport {
  categories: number;
  /** Kind rows of `suggest_term` (kinds holding listings). */
  kinds: number;
  brands: number;
  recent: number;
  /** Rows of `suggest_listing` (listings without a product). */
  listings: number;
  /** Rows of `suggest_word` (distinct word-start keys per listing). */
  words: number;
  /** Entries of `search_word`, the vocabulary of spelling correction (src/search/spelling.ts buildSearchWords). */
  vocabulary: number;
  seconds: number;
}

/** The version the `suggest` view is current for: the database's data version (src/db/data-version.ts). */
export async function suggestVersion(db: pg.Pool | pg.PoolClient): Promise<string> {
  const { rows } = await db.query<{ v: string }>('SELECT version::text AS v FROM data_version WHERE id = 1');
  return rows[0]?.v ?? '-';
}

/**
 * Records, after the orchestrator's data-version bump, that the `suggest` rows hold the data of the
 * current version (call only when the view was built or skipped as current in this run).
 */
export async function markSuggestCurrent(client: pg.PoolClient): Promise<void> {
  await client.query(`UPDATE view_run SET data_version = $1 WHERE name = 'suggest'`, [await suggestVersion(client)]);
}

/**
 * Rebuilds `suggest_term`, `recent_listing`, `suggest_listing`, `suggest_word`, `suggest_name` and `search_word` (module comment) in the caller's transaction.
 * @throws the database's errors.
 */
export async function buildSuggestViews(client: pg.PoolClient): Promise<SuggestReport> {
  const t0 = performance.now();
  await client.query('DELETE FROM suggest_term');
  // Categories as src/search/embedded.ts SUGGEST_SQL `cats`: each label at each position of each
  // distinct path, counted with the path's listings; its parent is the least of its parent paths.
  const cats = await client.query(
    `INSERT INTO suggest_term (kind, label, norm, parent, n)
     SELECT 'category', c.label, search_normalize(c.label), min(c.parent), sum(p.n)::int
     FROM (SELECT category_path, count(*) AS n FROM listing WHERE cardinality(category_path) > 0 GROUP BY category_path) p,
       LATERAL (SELECT u.label, array_to_string(p.category_path[1:u.i - 1], ' › ') AS parent
                FROM unnest(p.category_path) WITH ORDINALITY u(label, i)) c
     WHERE c.label IS NOT NULL
     GROUP BY c.label`,
  );
  // Kinds as SUGGEST_SQL `kind_terms` (src/search/embedded.ts kindTermsSql): each kind label with
  // the listings that share it and its detail (the shelf it is on).
  const kinds = await client.query(
    `INSERT INTO suggest_term (kind, label, norm, parent, n)
     SELECT 'kind', label, norm, parent, n::int FROM (${kindTermsSql('TRUE')}) t`,
  );
  // Brands as SUGGEST_SQL `brands`: by normalised text, labelled by the least spelling.
  const brands = await client.query(
    `INSERT INTO suggest_term (kind, label, norm, parent, n)
     SELECT 'brand', min(brand), search_normalize(brand), NULL, sum(n)::int
     FROM (SELECT brand, count(*) AS n FROM listing WHERE brand IS NOT NULL GROUP BY brand) b
     WHERE search_normalize(brand) IS NOT NULL
     GROUP BY search_normalize(brand)`,
  );
  await client.query('DELETE FROM recent_listing');
  // Recently seen as src/services/search.ts: last seen day (src/domain/listings.ts lastSeen), then id.
  const recent = await client.query(
    `INSERT INTO recent_listing (listing_id, retailer_id, last_seen)
     SELECT id, retailer_id, last_seen FROM (
       SELECT l.id, l.retailer_id, ${listingLastSeenSql('l', 'latest')} AS last_seen,
              row_number() OVER (PARTITION BY l.retailer_id ORDER BY ${listingLastSeenSql('l', 'latest')} DESC, l.id DESC) AS k
       FROM listing l JOIN retailer r ON r.id = l.retailer_id
       ${latestNationalSpanJoin('l', 'r', 'latest')}
     ) x WHERE k <= $1`,
    [RECENT_PER_CHAIN],
  );
  // Listings as src/search/embedded.ts SUGGEST_SQL `listings`: the unlinked ones, ranked available
  // first, then by name length, then id (`ord`), with the normalised name of the "starts with"
  // test (search_normalize, the rule the live query applies).
  await client.query('DELETE FROM suggest_word');
  await client.query('DELETE FROM suggest_name');
  await client.query('DELETE FROM suggest_listing');
  const listings = await client.query(
    `INSERT INTO suggest_listing (listing_id, ord, available, name_norm, search_name)
     SELECT id, row_number() OVER (ORDER BY available DESC, length(name), id), available, search_normalize(name), search_name
     FROM listing WHERE product_id IS NULL AND search_name IS NOT NULL
     ORDER BY 2`,
  );
  // Each normalised name as a key (cut as a btree entry must be), in key order.
  await client.query('INSERT INTO suggest_name (key, ord) SELECT left(name_norm, $1), ord FROM suggest_listing ORDER BY 1, 2', [NAME_KEY_CHARS]);
  // Each word start of search_name (position 1 and each one after a space: the live query's
  // ' ' || search_name LIKE '% prefix%'), cut to WORD_KEY_CHARS characters; in key order, so a
  // prefix's rows lie together.
  const words = await client.query(
    `INSERT INTO suggest_word (key, ord)
     SELECT DISTINCT left(array_to_string(w.words[i:], ' '), $1), s.ord
     FROM suggest_listing s, LATERAL (SELECT string_to_array(s.search_name, ' ') AS words) w, generate_subscripts(w.words, 1) i
     ORDER BY 1, 2`,
    [WORD_KEY_CHARS],
  );
  await client.query('ANALYZE suggest_term, recent_listing, suggest_listing, suggest_word, suggest_name');
  // The search vocabulary of spelling correction (src/search/spelling.ts). Unlike the rows above it
  // is read whether current or not: it only offers replacements for words no listing holds (a live
  // test), so a stale vocabulary can miss a correction but never hide a listing.
  const vocabulary = await buildSearchWords(client);
  return {
    categories: cats.rowCount ?? 0,
    kinds: kinds.rowCount ?? 0,
    brands: brands.rowCount ?? 0,
    recent: recent.rowCount ?? 0,
    listings: listings.rowCount ?? 0,
    words: words.rowCount ?? 0,
    vocabulary,
    seconds: (performance.now() - t0) / 1000,
  };
}
