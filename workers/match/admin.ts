/**
 * Curators' commands on links (`npm run worker -- link|unlink|lock|unlock|history ...`). A curator's
 * link or unlink is locked: the matching worker never changes a locked listing, and a listing
 * locked unlinked takes no part in matching, so it stays unlinked on every re-run.
 *
 * - `link <listing> <product>` adds the listing to an existing product and pins the product as the
 *   curator sees it: its current listings are locked too (a locked listing keeps its product, so
 *   without this the matcher would keep the product with the curator's listing and move the
 *   product's automatic members to a new one). `link <listing> new` starts a product of its own.
 * - `unlink <listing>` takes the listing off its product, locked unlinked.
 * - `lock` pins a listing as it is (linked or not); `unlock` hands it back to the matcher, whose
 *   next run may change it.
 *
 * Each command runs in one transaction under the matching lock, appends its decisions to the log
 * (`actor` = curator), refreshes the attributes of the products it touched and removes a product
 * it left without listings. A command that changes nothing logs nothing.
 */
import type pg from 'pg';
import { assignGenerics } from './generics.js';
import { inTransaction } from '../../src/db/transaction.js';
import { lockMatching, logDecisions, readListings, refreshProducts, createProducts, type ListingRow } from './store.js';
import { ExpectedError } from '../../src/errors.js';

/** A command that cannot be carried out (unknown listing or product); nothing was written. */
export class LinkCommandError extends ExpectedError {}

/** What a curator's command did. */
export interface CommandResult {
  listingId: number;
  /** The listing's product before and after. */
  previousProductId: number | null;
  productId: number | null;
  locked: boolean;
  /** False when the listing was already in the requested state (nothing written, nothing logged). */
  changed: boolean;
  /** A product created by `link <id> new`. */
  createdProductId: number | null;
  /** Products removed because the command left them without listings. */
  deletedProductIds: number[];
}

/**
 * Runs `f` in a transaction holding the matching lock (a curator's change never interleaves a run),
 * then brings product generics up to date (a new or changed product gets its generic at once).
 */
function curatorTransaction<T>(pool: pg.Pool, f: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, async (client) => {
    await lockMatching(client);
    const out = await f(client);
    await assignGenerics(client);
    return out;
  });
}

async function listing(client: pg.PoolClient, id: number): Promise<ListingRow> {
  if (!Number.isSafeInteger(id) || id <= 0) throw new LinkCommandError(`listing id must be a positive integer, not "${id}"`);
  await client.query('SELECT 1 FROM listing WHERE id = $1 FOR UPDATE', [id]);
  const [row] = await readListings(client, [id]);
  if (!row) throw new LinkCommandError(`no listing ${id}`);
  return row;
}

/**
 * Links listing `listingId` to product `target` (an existing product id, whose current listings
 * are then locked as they are, or 'new' to create one from the listing), locked, with method
 * `manual` and confidence 1.
 * @throws LinkCommandError for an unknown listing or product.
 */
export async function linkListing(pool: pg.Pool, listingId: number, target: number | 'new', note?: string): Promise<CommandResult> {
  return curatorTransaction(pool, async (client) => {
    const l = await listing(client, listingId);
    let productId: number;
    let created: number | null = null;
    if (target === 'new') {
      [productId] = await createProducts(client, [[l]]);
      created = productId;
    } else {
      if (!Number.isSafeInteger(target) || target <= 0) throw new LinkCommandError(`product id must be a positive integer or "new", not "${target}"`);
      const p = await client.query('SELECT 1 FROM product WHERE id = $1 FOR UPDATE', [target]);
      if (p.rowCount === 0) throw new LinkCommandError(`no product ${target}`);
      productId = target;
    }
    // The product's current listings, pinned as they are (see the module comment).
    const { rows: members } = await client.query<{ id: number; link_method: string | null; link_confidence: number | null }>(
      'SELECT id, link_method, link_confidence FROM listing WHERE product_id = $1 AND id <> $2 AND NOT link_locked ORDER BY id FOR UPDATE',
      [productId, l.id],
    );
    if (members.length > 0) {
      await client.query('UPDATE listing SET link_locked = true, linked_at = now() WHERE id = ANY($1::int[])', [members.map((m) => m.id)]);
      await logDecisions(client, members.map((m) => ({
        listingId: m.id, action: 'lock' as const, productId, previousProductId: productId, method: m.link_method, confidence: m.link_confidence,
        locked: true, actor: 'curator' as const, detail: { command: 'link', reason: `product pinned by the curator's link of listing ${l.id}` },
      })));
    }
    const unchanged = l.productId === productId && l.linkLocked && l.linkMethod === 'manual' && l.linkConfidence === 1;
    if (unchanged) return result(l, productId, true, members.length > 0, null, []);
    await client.query(
      `UPDATE listing SET product_id = $2, link_method = 'manual', link_confidence = 1, link_locked = true, linked_at = now() WHERE id = $1`,
      [l.id, productId],
    );
    await logDecisions(client, [{
      listingId: l.id, action: l.productId === null ? 'link' : l.productId === productId ? 'update' : 'relink',
      productId, previousProductId: l.productId, method: 'manual', confidence: 1, locked: true, actor: 'curator',
      detail: { command: target === 'new' ? 'link new' : 'link', ...(note ? { note } : {}) },
    }]);
    const refreshed = await refreshProducts(client, l.productId === null ? [productId] : [productId, l.productId]);
    return result(l, productId, true, true, created, refreshed.deleted);
  });
}

/**
 * Unlinks listing `listingId` and locks it unlinked (method `manual`, confidence 1): re-runs of
 * the matcher keep it unlinked until a curator unlocks it.
 * @throws LinkCommandError for an unknown listing.
 */
export async function unlinkListing(pool: pg.Pool, listingId: number, note?: string): Promise<CommandResult> {
  return curatorTransaction(pool, async (client) => {
    const l = await listing(client, listingId);
    if (l.productId === null && l.linkLocked) return result(l, null, true, false, null, []);
    await client.query(
      `UPDATE listing SET product_id = NULL, link_method = 'manual', link_confidence = 1, link_locked = true, linked_at = now() WHERE id = $1`,
      [l.id],
    );
    await logDecisions(client, [{
      listingId: l.id, action: 'unlink', productId: null, previousProductId: l.productId, method: 'manual', confidence: 1,
      locked: true, actor: 'curator', detail: { command: 'unlink', ...(note ? { note } : {}) },
    }]);
    const refreshed = l.productId === null ? { deleted: [] as number[] } : await refreshProducts(client, [l.productId]);
    return result(l, null, true, true, null, refreshed.deleted);
  });
}

/**
 * Locks (`locked` true) or unlocks listing `listingId` as it is: its product, method and
 * confidence stay. Unlocked, the listing is the matcher's again.
 * @throws LinkCommandError for an unknown listing.
 */
export async function setLocked(pool: pg.Pool, listingId: number, locked: boolean, note?: string): Promise<CommandResult> {
  return curatorTransaction(pool, async (client) => {
    const l = await listing(client, listingId);
    if (l.linkLocked === locked) return result(l, l.productId, locked, false, null, []);
    await client.query('UPDATE listing SET link_locked = $2, linked_at = now() WHERE id = $1', [l.id, locked]);
    await logDecisions(client, [{
      listingId: l.id, action: locked ? 'lock' : 'unlock', productId: l.productId, previousProductId: l.productId,
      method: l.linkMethod, confidence: l.linkConfidence, locked, actor: 'curator', detail: note ? { note } : null,
    }]);
    return result(l, l.productId, locked, true, null, []);
  });
}

/** One decision of {@link linkHistory}. */
export interface HistoryEntry {
  id: string;
  action: string;
  productId: number | null;
  previousProductId: number | null;
  method: string | null;
  confidence: number | null;
  locked: boolean;
  actor: string;
  detail: unknown;
  decidedAt: string;
}

/** The decision log of one listing, oldest first. */
export async function linkHistory(pool: pg.Pool, listingId: number): Promise<HistoryEntry[]> {
  const { rows } = await pool.query<{
    id: string; action: string; product_id: number | null; previous_product_id: number | null; method: string | null;
    confidence: number | null; locked: boolean; actor: string; detail: unknown; decided_at: Date;
  }>('SELECT id::text AS id, action, product_id, previous_product_id, method, confidence, locked, actor, detail, decided_at FROM link_decision WHERE listing_id = $1 ORDER BY link_decision.id', [listingId]);
  return rows.map((r) => ({
    id: r.id, action: r.action, productId: r.product_id, previousProductId: r.previous_product_id, method: r.method,
    confidence: r.confidence, locked: r.locked, actor: r.actor, detail: r.detail, decidedAt: r.decided_at.toISOString(),
  }));
}

function result(l: ListingRow, productId: number | null, locked: boolean, changed: boolean, created: number | null, deleted: number[]): CommandResult {
  return { listingId: l.id, previousProductId: l.productId, productId, locked, changed, createdProductId: created, deletedProductIds: deleted };
}
