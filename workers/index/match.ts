/**
 * The basket-matching worker (issue 15, part 2): matches every listing to at most one Food Price
 * Index basket item (src/domain/basket-match.ts `matchListing`) and keeps basket_match, the matches'
 * validity intervals, and basket_decision, their append-only log, in step with the rules.
 * Re-runnable and idempotent: a run over unchanged data and an unchanged basket writes nothing.
 *
 * One run, in one transaction under the `basketMatch` lock (src/db/locks.ts) (the curators' commands in ./admin.ts
 * take the same lock):
 * 1. copy the basket file into basket_group / basket_item (./basket.ts `syncBasket`); the items of
 *    the file are the active ones, and only they are proposed;
 * 2. read every listing (keyset batches) with its name, brand, size text, category path and
 *    weighable flag, and its **state**: its latest basket_match row (highest id);
 * 3. skip a listing whose latest row is `locked` (a curator's match, or a curator's unmatch: a closed
 *    locked row keeps the listing unmatched);
 * 4. propose: `matchListing(matchInputOf(listing, kind), items)` (null = no item), the input built
 *    by the same function as the validation's (test/bench/index-validate.ts). The listing's kind:
 *    by default (`kinds: 'stored'`) the kind of its stored generic (listing.generic_id →
 *    generic.kind_id → kind.slug), which workers/match/generics.ts writes from `classify` of the
 *    same name, brand, size, category path and weighable flag at the end of every matching run
 *    (after each ingest, import and curator link command), so it is classify's kind whenever the
 *    product matcher has run since the listing last changed; a listing without a generic is
 *    classified here. `kinds: 'classify'` classifies every listing (about 0.1 ms each: 14 s for
 *    120,000 listings) — use it after editing listings or kinds.ts without running the matcher;
 * 5. write only the differences, each with one basket_decision row (actor `matcher`):
 *    - no match in force, a proposal → a new row (origin `auto`, the confidence, valid_from = E):
 *      action `match`;
 *    - in force, another item proposed → the current row closed (valid_to = E) and a new one opened
 *      at E: action `rematch`;
 *    - in force, nothing proposed → the current row closed at E: action `unmatch`;
 *    - in force, the same item with another confidence → the confidence updated in place (no new
 *      interval): action `rematch` with item_id = previous_item_id and detail `change: confidence`
 *      (the decision table has no "update" action) and day NULL.
 *
 * The change day: D = the day after `index_run.last_day` when an index_run row exists (computed
 * history is never rewritten); before the first index computation, D = the listing's first priced
 * day (the earliest first_day of its national_price_span rows, else `listing.first_seen`), so that
 * the first backfill covers the listing's whole history. E = the later of D and the day the
 * listing's latest row starts (an open row) or ends (a closed row), so a listing's intervals never
 * overlap and valid_to >= valid_from always holds. A row closed on its first day
 * (valid_from = valid_to) was never in force.
 *
 * `ref_price` and `linked_relative` (the link factor) are left NULL here: they are the price and the
 * item's relative on valid_from, which only the index computation knows; it fills them.
 */
import type pg from 'pg';
import { inTransaction } from '../../src/db/transaction.js';
import { lockSession, unlockSession } from '../../src/db/locks.js';
import { loadBasket, type Basket, type BasketItem } from '../../src/domain/basket.js';
import { matchInputOf, matchListing, type Candidate, type MatchInput } from '../../src/domain/basket-match.js';
import { addDays } from '../../src/domain/days.js';
import { makeProgress } from '../progress.js';
import { syncBasket, type BasketSyncReport } from './basket.js';

/**
 * Advisory lock key of basket matching: one matching run (session-level lock, held across its
 * transaction) or curator command (transaction-level, ./admin.ts) at a time per database.
 */

/** Listings read per query. */
const BATCH = 5000;

/** Options of {@link runBasketMatching}. */
export interface BasketMatchOptions {
  /** Compute and report, then roll back (default false). */
  dryRun?: boolean;
  /** Show a progress bar (default: when stderr is a terminal). */
  progress?: boolean;
  /** The basket to match against (default: src/domain/basket-items.json via `loadBasket`); synced first. */
  basket?: Basket;
  /**
   * Where listings' kinds come from: `stored` (default), the stored generic's kind, classifying only
   * listings without a generic; `classify`, classify every listing (see the module comment).
   */
  kinds?: 'stored' | 'classify';
}

/** What {@link runBasketMatching} did. */
export interface BasketMatchReport {
  /** Listings read. */
  listings: number;
  /** Listings newly matched (no match in force before): action `match`. */
  matched: number;
  /** Listings moved to another item: action `rematch`. */
  rematched: number;
  /** Listings whose match was closed because no item admits them any more: action `unmatch`. */
  unmatched: number;
  /** Listings kept on their item with a new confidence (updated in place). */
  updated: number;
  /** Listings whose state already agreed with the rules (matched or not): nothing written. */
  unchanged: number;
  /** Listings skipped because a curator locked their state. */
  locked: number;
  /** Listings with a match in force (valid_to NULL) after the run, locked ones included. */
  inForce: number;
  /** Active observable items with at least one match in force after the run, and how many there are. */
  items: { matched: number; observable: number };
  /** Listings whose kind came from their stored generic, and those classified in this run. */
  kinds: { stored: number; classified: number };
  /** D when an index_run row exists (the day after its last_day); null: each listing's first priced day. */
  day: string | null;
  /** basket_decision rows appended (one per change). */
  decisions: number;
  basket: BasketSyncReport;
  dryRun: boolean;
  /** Seconds spent reading, matching and writing. */
  seconds: { read: number; match: number; write: number };
}

/** A listing and its basket state as the worker and the curator commands read it. */
export interface BasketListingRow {
  id: number;
  name: string;
  brand: string | null;
  sizeText: string | null;
  categoryPath: string[];
  weighable: boolean;
  /** The listing's first priced day (earliest national span), else its first_seen; YYYY-MM-DD. */
  firstDay: string;
  /**
   * Kind slug of the listing's stored generic (workers/match/generics.ts); undefined when the
   * listing has no generic (not classified yet, or no kind claims it).
   */
  storedKind: string | undefined;
  /** Its latest basket_match row (highest id), or null when it has none. */
  state: MatchState | null;
}

/** A basket_match row as the state of its listing. */
export interface MatchState {
  id: number;
  itemId: number;
  origin: 'auto' | 'manual';
  locked: boolean;
  confidence: number | null;
  validFrom: string;
  /** Null while in force. */
  validTo: string | null;
}

interface RawRow {
  id: number;
  name: string;
  brand: string | null;
  size_text: string | null;
  category_path: string[];
  weighable: boolean;
  first_day: string;
  stored_kind: string | null;
  match_id: number | null;
  item_id: number | null;
  origin: 'auto' | 'manual' | null;
  locked: boolean | null;
  confidence: number | null;
  valid_from: string | null;
  valid_to: string | null;
}

const SELECT = `SELECT l.id, l.name, l.brand, l.size_text, l.category_path, l.weighable,
    to_char(coalesce((SELECT min(s.first_day) FROM national_price_span s WHERE s.listing_id = l.id), l.first_seen), 'YYYY-MM-DD') AS first_day,
    (SELECT k.slug FROM generic g JOIN kind k ON k.id = g.kind_id WHERE g.id = l.generic_id) AS stored_kind,
    m.id AS match_id, m.item_id, m.origin, m.locked, m.confidence,
    to_char(m.valid_from, 'YYYY-MM-DD') AS valid_from, to_char(m.valid_to, 'YYYY-MM-DD') AS valid_to
  FROM listing l
  LEFT JOIN LATERAL (
    SELECT bm.id, bm.item_id, bm.origin, bm.locked, bm.confidence, bm.valid_from, bm.valid_to
    FROM basket_match bm WHERE bm.listing_id = l.id ORDER BY bm.id DESC LIMIT 1
  ) m ON true`;

function toRow(r: RawRow): BasketListingRow {
  return {
    id: r.id,
    name: r.name,
    brand: r.brand,
    sizeText: r.size_text,
    categoryPath: r.category_path,
    weighable: r.weighable,
    firstDay: r.first_day,
    storedKind: r.stored_kind ?? undefined,
    state:
      r.match_id === null
        ? null
        : {
            id: Number(r.match_id), itemId: r.item_id!, origin: r.origin!, locked: r.locked!, confidence: r.confidence,
            validFrom: r.valid_from!, validTo: r.valid_to,
          },
  };
}

/**
 * Reads listings `ids` (ascending id; unknown ids are absent) with their basket state, on the
 * caller's client. @throws the database's error.
 */
export async function readBasketListings(client: pg.PoolClient, ids: readonly number[]): Promise<BasketListingRow[]> {
  const { rows } = await client.query<RawRow>(`${SELECT} WHERE l.id = ANY($1::int[]) ORDER BY l.id`, [ids]);
  return rows.map(toRow);
}

/**
 * The day after the last computed index day (`index_run.last_day` + 1, YYYY-MM-DD), or null before
 * the first index computation (no index_run row). @throws the database's error.
 */
export async function nextIndexDay(client: pg.PoolClient): Promise<string | null> {
  const { rows } = await client.query<{ last_day: string }>("SELECT to_char(last_day, 'YYYY-MM-DD') AS last_day FROM index_run WHERE id = 1");
  return rows.length ? addDays(rows[0].last_day, 1) : null;
}

/**
 * The day a change of `listing`'s state takes effect (E in the module comment): D (`next`, the day
 * after the last computed index day, or the listing's first priced day when null), moved later if
 * needed to the start of its open row or the end of its closed latest row, so intervals never overlap.
 */
export function changeDay(listing: Pick<BasketListingRow, 'firstDay' | 'state'>, next: string | null): string {
  const d = next ?? listing.firstDay;
  const s = listing.state;
  if (!s) return d;
  const floor = s.validTo ?? s.validFrom;
  return floor > d ? floor : d;
}

/** A decision row to append to basket_decision. */
export interface BasketDecision {
  listingId: number;
  action: 'match' | 'rematch' | 'unmatch' | 'lock' | 'unlock';
  /** The listing's item after the decision (null: unmatched). */
  itemId: number | null;
  /** Its item before the decision (null: unmatched). */
  previousItemId: number | null;
  confidence: number | null;
  locked: boolean;
  actor: 'matcher' | 'curator';
  /** The valid_from or valid_to the decision set (YYYY-MM-DD), or null. */
  day: string | null;
  detail: Record<string, unknown> | null;
}

/** Appends `decisions` to basket_decision on the caller's client (in order). @throws the database's error. */
export async function logBasketDecisions(client: pg.PoolClient, decisions: readonly BasketDecision[]): Promise<void> {
  for (let i = 0; i < decisions.length; i += BATCH) {
    const part = decisions.slice(i, i + BATCH);
    await client.query(
      `INSERT INTO basket_decision (listing_id, action, item_id, previous_item_id, confidence, locked, actor, day, detail)
       SELECT listing_id, action, item_id, previous_item_id, confidence, locked, actor, day, detail
       FROM unnest($1::int[], $2::text[], $3::int[], $4::int[], $5::float8[], $6::bool[], $7::text[], $8::date[], $9::jsonb[])
         WITH ORDINALITY AS u(listing_id, action, item_id, previous_item_id, confidence, locked, actor, day, detail, n)
       ORDER BY n`,
      [
        part.map((d) => d.listingId), part.map((d) => d.action), part.map((d) => d.itemId), part.map((d) => d.previousItemId),
        part.map((d) => d.confidence), part.map((d) => d.locked), part.map((d) => d.actor), part.map((d) => d.day),
        part.map((d) => (d.detail === null ? null : JSON.stringify(d.detail))),
      ],
    );
  }
}

/** What a decision records of the matcher's reasons: the rule that admitted the listing. */
export function candidateDetail(c: Candidate, input: MatchInput): Record<string, unknown> {
  return {
    keyword: c.keyword,
    kind: input.kind,
    item_kind: c.item.kind,
    size_basis: c.sizeBasis,
    size: c.size,
    unit: c.item.unit,
    scores: c.scores,
  };
}

/**
 * Matches every listing to the basket and writes the differences (see the module comment).
 * Dry run: everything is computed and reported, then rolled back.
 * @returns the counts of {@link BasketMatchReport}.
 * @throws BasketError (src/domain/basket.ts) when the basket file is invalid, or the database's
 *   error; the transaction is rolled back and nothing is written.
 */
export async function runBasketMatching(pool: pg.Pool, opts: BasketMatchOptions = {}): Promise<BasketMatchReport> {
  const basket = opts.basket ?? loadBasket();
  const client = await pool.connect();
  try {
    // The lock is taken before the transaction starts, so the run reads what a curator's command
    // committed while it waited.
    await lockSession(client, 'basketMatch', 'wait');
    return await inTransaction(client, (tx) => run(tx, basket, opts), { rollback: opts.dryRun === true });
  } finally {
    client.release(!(await unlockSession(client, 'basketMatch')));
  }
}

interface Insert {
  listingId: number;
  itemId: number;
  confidence: number;
  day: string;
}

async function run(client: pg.PoolClient, basket: Basket, opts: BasketMatchOptions): Promise<BasketMatchReport> {
  const t0 = performance.now();
  const sync = await syncBasket(client, basket);
  const items: readonly BasketItem[] = basket.items; // the file's items are exactly the active ones after the sync
  const next = await nextIndexDay(client);
  const { rows: countRows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM listing');
  const bar = makeProgress(opts.progress, 'basket match', countRows[0].n);

  const closes: { id: number; day: string }[] = [];
  const inserts: Insert[] = [];
  const confidences: { id: number; confidence: number }[] = [];
  const decisions: BasketDecision[] = [];
  let listings = 0;
  let unchanged = 0;
  let locked = 0;
  let storedKinds = 0;
  let classified = 0;
  let readMs = 0;
  let lastId = 0;
  for (;;) {
    const r0 = performance.now();
    const { rows } = await client.query<RawRow>(`${SELECT} WHERE l.id > $1 ORDER BY l.id LIMIT ${BATCH}`, [lastId]);
    readMs += performance.now() - r0;
    if (rows.length === 0) break;
    lastId = rows[rows.length - 1].id;
    for (const raw of rows) {
      const l = toRow(raw);
      listings++;
      const s = l.state;
      if (s?.locked) {
        locked++;
        continue;
      }
      const stored = opts.kinds !== 'classify' && l.storedKind !== undefined;
      if (stored) storedKinds++;
      else classified++;
      const input = matchInputOf(l, stored ? l.storedKind : undefined);
      const c = matchListing(input, items);
      const open = s && s.validTo === null ? s : null;
      if (!c && !open) {
        unchanged++;
        continue;
      }
      if (c && open && open.itemId === c.item.id) {
        if (open.confidence === c.confidence) {
          unchanged++;
          continue;
        }
        confidences.push({ id: open.id, confidence: c.confidence });
        decisions.push({
          listingId: l.id, action: 'rematch', itemId: open.itemId, previousItemId: open.itemId, confidence: c.confidence, locked: false,
          actor: 'matcher', day: null, detail: { change: 'confidence', was: open.confidence, ...candidateDetail(c, input) },
        });
        continue;
      }
      const day = changeDay(l, next);
      if (open) closes.push({ id: open.id, day });
      if (c) {
        inserts.push({ listingId: l.id, itemId: c.item.id, confidence: c.confidence, day });
        decisions.push({
          listingId: l.id, action: open ? 'rematch' : 'match', itemId: c.item.id, previousItemId: open?.itemId ?? null, confidence: c.confidence,
          locked: false, actor: 'matcher', day,
          detail: { ...candidateDetail(c, input), ...(open ? { was: { item_id: open.itemId, confidence: open.confidence, origin: open.origin } } : {}) },
        });
      } else {
        decisions.push({
          listingId: l.id, action: 'unmatch', itemId: null, previousItemId: open!.itemId, confidence: null, locked: false, actor: 'matcher', day,
          detail: { reason: 'no active basket item admits the listing', kind: input.kind, was: { item_id: open!.itemId, confidence: open!.confidence, origin: open!.origin } },
        });
      }
    }
    bar.increment(rows.length);
  }
  bar.stop();
  const t1 = performance.now();

  // Closes first: the open-row unique index allows one open row per listing.
  for (let i = 0; i < closes.length; i += BATCH) {
    const part = closes.slice(i, i + BATCH);
    await client.query(
      `UPDATE basket_match m SET valid_to = u.day FROM unnest($1::bigint[], $2::date[]) AS u(id, day)
       WHERE m.id = u.id AND m.valid_to IS NULL AND NOT m.locked`,
      [part.map((c) => c.id), part.map((c) => c.day)],
    );
  }
  for (let i = 0; i < confidences.length; i += BATCH) {
    const part = confidences.slice(i, i + BATCH);
    await client.query(
      `UPDATE basket_match m SET confidence = u.confidence FROM unnest($1::bigint[], $2::float8[]) AS u(id, confidence)
       WHERE m.id = u.id AND NOT m.locked`,
      [part.map((c) => c.id), part.map((c) => c.confidence)],
    );
  }
  for (let i = 0; i < inserts.length; i += BATCH) {
    const part = inserts.slice(i, i + BATCH);
    await client.query(
      `INSERT INTO basket_match (item_id, listing_id, origin, locked, confidence, valid_from)
       SELECT item_id, listing_id, 'auto', false, confidence, day
       FROM unnest($1::int[], $2::int[], $3::float8[], $4::date[]) WITH ORDINALITY AS u(item_id, listing_id, confidence, day, n) ORDER BY n`,
      [part.map((x) => x.itemId), part.map((x) => x.listingId), part.map((x) => x.confidence), part.map((x) => x.day)],
    );
  }
  await logBasketDecisions(client, decisions);
  // Fresh statistics when a tenth of the table or more was written (autovacuum's default
  // autovacuum_analyze_scale_factor, without waiting for its next pass): get_basket's statement over
  // the open matches took 150 ms instead of 15 with the statistics of before the run (a SYNTHETIC
  // 120,000-listing panel, 23,096 matches written). ANALYZE in this transaction counts its own writes;
  // not in a dry run: the statistics it writes to pg_class outlive a rollback.
  const written = closes.length + confidences.length + inserts.length;
  const { rows: [stats] } = await client.query<{ tuples: number }>(`SELECT greatest(reltuples, 0)::float8 AS tuples FROM pg_class WHERE oid = 'basket_match'::regclass`);
  if (!opts.dryRun && written > 0 && written >= 0.1 * stats.tuples) await client.query('ANALYZE basket_match');
  const after = await client.query<{ listings: number; items: number; observable: number }>(
    `SELECT (SELECT count(*)::int FROM basket_match WHERE valid_to IS NULL) AS listings,
            (SELECT count(DISTINCT m.item_id)::int FROM basket_match m JOIN basket_item i ON i.id = m.item_id JOIN basket_group g ON g.id = i.group_id
              WHERE m.valid_to IS NULL AND i.active AND g.observable) AS items,
            (SELECT count(*)::int FROM basket_item i JOIN basket_group g ON g.id = i.group_id WHERE i.active AND g.observable) AS observable`,
  );
  const t2 = performance.now();
  const count = (a: BasketDecision['action'], update = false) =>
    decisions.filter((d) => d.action === a && (d.detail?.change === 'confidence') === update).length;
  return {
    listings,
    matched: count('match'),
    rematched: count('rematch'),
    unmatched: count('unmatch'),
    updated: count('rematch', true),
    unchanged,
    locked,
    inForce: after.rows[0].listings,
    items: { matched: after.rows[0].items, observable: after.rows[0].observable },
    kinds: { stored: storedKinds, classified },
    day: next,
    decisions: decisions.length,
    basket: sync,
    dryRun: opts.dryRun === true,
    seconds: { read: readMs / 1000, match: (t1 - t0 - readMs) / 1000, write: (t2 - t1) / 1000 },
  };
}
