/**
 * The matching worker (issue 5): links listings of different chains that are the same item to one
 * product. Re-runnable and idempotent: run after each ingest (`workers/cli.ts ingest`), on its own
 * (`npm run worker -- match`), any number of times.
 *
 * One run, in one transaction under an advisory lock (curators' commands take the same lock):
 * 1. read every listing (keyset batches) with its current link and reference price;
 * 2. propose and group links (src/domain/matching.ts: GTIN, shared banner ids, then names with a
 *    calibrated confidence; name links below the threshold are not made); a named listing left
 *    alone becomes a product of its own (method `single`), so every named item has a product page;
 * 3. give each group a product — a curator's locked product, else the existing product most of its
 *    listings already have (never one product to two groups), else a new one — so a re-run
 *    reuses every product and never duplicates one;
 * 4. write only what changed: listings whose product, method or confidence differ (link_method,
 *    link_confidence, linked_at) with one decision-log row each; product attributes that differ;
 *    products left with no listings are removed. A locked listing (a curator's link or unlink) is
 *    never written. A run over unchanged data writes nothing, not even to the log;
 * 5. parse sizes and assign generics to listings and products (workers/match/generics.ts).
 */
import type pg from 'pg';
import {
  assignProducts,
  DEFAULT_THRESHOLD,
  listingFeatures,
  matchListings,
  type Locks,
  type MatchGroup,
  type MemberLink,
} from '../../src/domain/matching.js';
import { makeProgress } from '../progress.js';
import { inTransaction } from '../../src/db/transaction.js';
import { lockSession, unlockSession } from '../../src/db/locks.js';
import {
  countListings,
  createProducts,
  logDecisions,
  orphanProducts,
  readAllListings,
  refreshProducts,
  type Decision,
} from './store.js';
import { assignGenerics, type GenericsReport } from './generics.js';

/** Options of {@link runMatching}. */
export interface MatchOptions {
  /** Minimum confidence of a name link (default {@link DEFAULT_THRESHOLD}). */
  threshold?: number;
  /** Compute and report, then roll back (default false). */
  dryRun?: boolean;
  /** Use reference prices as evidence (default true; see src/domain/matching.ts `priceAgreement`). */
  usePrice?: boolean;
  /** Show a progress bar (default: when stderr is a terminal). */
  progress?: boolean;
}

/** Link counts by method. */
export type MethodCounts = Record<string, number>;

/** What a run did. */
export interface MatchReport {
  /** Listings read; of them with a name to match on; locked by a curator. */
  listings: number;
  nameable: number;
  locked: number;
  /** Links proposed, by method (name proposals at or above the threshold only). */
  proposed: MethodCounts;
  /** Groups formed (two or more listings, or a curator's product). */
  groups: number;
  /** Products of one listing (method `single`): named listings no other chain's listing matches. */
  singles: number;
  /** Listings linked after the run, by method (locked ones included under their own method). */
  linked: MethodCounts;
  /** Listing changes written (each with one decision-log row). */
  changes: { link: number; relink: number; unlink: number; update: number };
  products: { created: number; updated: number; deleted: number; total: number };
  /** Parsed sizes and generics written after the links (workers/match/generics.ts). */
  generics: GenericsReport;
  /**
   * Listings whose search documents must be rewritten (their product or its name changed), ascending:
   * pass to workers/search `syncListings` when Elasticsearch is in use.
   */
  listingIds: number[];
  threshold: number;
  dryRun: boolean;
  /** Seconds spent reading, matching and writing. */
  seconds: { read: number; match: number; write: number };
}

const isSingle = (g: MatchGroup) => g.listingIds.length === 1 && g.links.get(g.listingIds[0])?.method === 'single';

interface Desired {
  productIndex: number; // index into groups
  link: MemberLink;
}

/**
 * Runs the matcher over every listing and writes the outcome (see the module comment).
 * @throws the database's error (the transaction is rolled back; nothing is written) or a RangeError
 *   for a threshold outside [0, 1].
 */
export async function runMatching(pool: pg.Pool, opts: MatchOptions = {}): Promise<MatchReport> {
  const threshold = opts.threshold ?? DEFAULT_THRESHOLD;
  if (!(threshold >= 0 && threshold <= 1)) throw new RangeError(`threshold must be within [0, 1], not ${threshold}`);
  const client = await pool.connect();
  try {
    // The lock is taken before the transaction starts, so the run reads what a curator's command
    // committed while it waited. READ COMMITTED: an ingest updating listing attributes meanwhile
    // does not make the run fail; the next run sees its changes.
    await lockSession(client, 'match', 'wait');
    return await inTransaction(client, (tx) => run(tx, threshold, opts), { rollback: opts.dryRun === true });
  } finally {
    client.release(!(await unlockSession(client, 'match')));
  }
}

async function run(client: pg.PoolClient, threshold: number, opts: MatchOptions): Promise<MatchReport> {
  const t0 = performance.now();
  const total = await countListings(client);
  const readBar = makeProgress(opts.progress, 'match: read listings', total);
  const listings = await readAllListings(client, 5000, (n) => readBar.increment(n));
  readBar.stop();
  const t1 = performance.now();

  const byId = new Map(listings.map((l) => [l.id, l]));
  const locks: Locks = new Map(listings.filter((l) => l.linkLocked).map((l) => [l.id, l.productId]));
  const features = listings.map((l) => listingFeatures(l, { placeholder: l.placeholder }));
  const { edges, groups } = matchListings(features, { threshold, locks, usePrice: opts.usePrice });
  const current = new Map(listings.filter((l) => !l.linkLocked).map((l) => [l.id, l.productId]));
  const assigned = assignProducts(groups, current);
  const desired = new Map<number, Desired>();
  groups.forEach((g, gi) => {
    for (const [id, link] of g.links) desired.set(id, { productIndex: gi, link });
  });
  const t2 = performance.now();

  // New products first (their ids are needed by the listing updates).
  const newIndexes = assigned.flatMap((p, gi) => (p === null ? [gi] : []));
  const newIds = await createProducts(client, newIndexes.map((gi) => groups[gi].listingIds.map((id) => byId.get(id)!)));
  const productOf = [...assigned];
  newIndexes.forEach((gi, k) => (productOf[gi] = newIds[k]));

  // Listing changes and their decisions.
  const decisions: Decision[] = [];
  const updates: { id: number; product: number | null; method: string | null; confidence: number | null }[] = [];
  for (const l of listings) {
    if (l.linkLocked) continue;
    const d = desired.get(l.id);
    const product = d ? productOf[d.productIndex] : null;
    const method = d ? d.link.method : null;
    const confidence = d ? d.link.confidence : null;
    if (product === l.productId && method === l.linkMethod && confidence === l.linkConfidence) continue;
    updates.push({ id: l.id, product, method, confidence });
    const action: Decision['action'] =
      product === null ? 'unlink' : l.productId === null ? 'link' : product !== l.productId ? 'relink' : 'update';
    const edge = d?.link.edge ?? null;
    const detail: Record<string, unknown> =
      edge !== null
        ? { partner: edge.a === l.id ? edge.b : edge.a, threshold, ...edge.detail }
        : method === 'single'
          ? { reason: `no other chain's listing links at confidence >= ${threshold}: a product of its own`, was: { method: l.linkMethod, confidence: l.linkConfidence } }
          : { reason: `no link at confidence >= ${threshold}`, was: { method: l.linkMethod, confidence: l.linkConfidence } };
    decisions.push({
      listingId: l.id, action, productId: product, previousProductId: l.productId, method, confidence,
      locked: false, actor: 'matcher', detail,
    });
  }
  const writeBar = makeProgress(opts.progress, 'match: write links', updates.length);
  for (let i = 0; i < updates.length; i += 5000) {
    const part = updates.slice(i, i + 5000);
    await client.query(
      `UPDATE listing l SET product_id = u.product_id, link_method = u.method, link_confidence = u.confidence, linked_at = now()
       FROM unnest($1::int[], $2::int[], $3::text[], $4::float8[]) AS u(id, product_id, method, confidence)
       WHERE l.id = u.id AND NOT l.link_locked`,
      [part.map((u) => u.id), part.map((u) => u.product), part.map((u) => u.method), part.map((u) => u.confidence)],
    );
    writeBar.increment(part.length);
  }
  writeBar.stop();
  await logDecisions(client, decisions);

  // Products: attributes of every product that has listings now, removal of those without.
  const touchedProducts = new Set<number>();
  for (const p of productOf) if (p !== null) touchedProducts.add(p);
  for (const u of updates) {
    const was = byId.get(u.id)!.productId;
    if (was !== null) touchedProducts.add(was);
  }
  for (const id of await orphanProducts(client)) touchedProducts.add(id);
  const before = new Map<number, string>(
    (await client.query<{ id: number; name: string }>('SELECT id, name FROM product WHERE id = ANY($1::int[])', [[...touchedProducts]])).rows.map(
      (r) => [r.id, r.name],
    ),
  );
  const refreshed = await refreshProducts(client, [...touchedProducts]);
  const renamed = new Set<number>();
  if (refreshed.updated.length > 0) {
    const after = await client.query<{ id: number; name: string }>('SELECT id, name FROM product WHERE id = ANY($1::int[])', [refreshed.updated]);
    for (const r of after.rows) if (before.get(r.id) !== r.name) renamed.add(r.id);
  }
  const generics = await assignGenerics(client);
  const t3 = performance.now();

  const listingIds = new Set<number>(updates.map((u) => u.id));
  for (const l of listings) if (l.productId !== null && renamed.has(l.productId) && !listingIds.has(l.id)) listingIds.add(l.id);
  for (const [id, d] of desired) if (renamed.has(productOf[d.productIndex]!)) listingIds.add(id);

  const proposed: MethodCounts = {};
  for (const e of edges) if (e.method !== 'name' || e.confidence >= threshold) proposed[e.method] = (proposed[e.method] ?? 0) + 1;
  const linkedRows = await client.query<{ method: string; n: string }>(
    `SELECT coalesce(link_method, 'none') AS method, count(*) AS n FROM listing WHERE product_id IS NOT NULL GROUP BY 1 ORDER BY 1`,
  );
  const productCount = await client.query<{ n: string }>('SELECT count(*) AS n FROM product');
  const created = new Set(newIds);
  const count = (a: Decision['action']) => decisions.filter((d) => d.action === a).length;
  return {
    listings: listings.length,
    nameable: features.filter((f) => f.nameable).length,
    locked: locks.size,
    proposed,
    groups: groups.filter((g) => !isSingle(g)).length,
    singles: groups.filter(isSingle).length,
    linked: Object.fromEntries(linkedRows.rows.map((r) => [r.method, Number(r.n)])),
    changes: { link: count('link'), relink: count('relink'), unlink: count('unlink'), update: count('update') },
    products: {
      created: newIds.length,
      updated: refreshed.updated.filter((id) => !created.has(id)).length,
      deleted: refreshed.deleted.length,
      total: Number(productCount.rows[0].n),
    },
    generics,
    listingIds: [...listingIds].sort((a, b) => a - b),
    threshold,
    dryRun: opts.dryRun ?? false,
    seconds: { read: (t1 - t0) / 1000, match: (t2 - t1) / 1000, write: (t3 - t2) / 1000 },
  };
}
