/**
 * Curators' commands on basket matches (issue 15, part 2): match a listing to a basket item by hand,
 * unmatch it, lock or unlock its state, read its decision log. A curator's match or unmatch is
 * locked: the basket matcher (./match.ts) never changes a listing whose latest basket_match row is
 * locked, so a manual match is kept even when the rules would pick another item, and an unmatch is
 * never undone.
 *
 * State (prisma/migrations/20261128000000_index): a listing's latest basket_match row (highest id)
 * is its state; open (valid_to NULL) = matched to its item, closed = unmatched; `locked` on it pins
 * that state. Changes take effect on E (./match.ts `changeDay`): the day after the last computed
 * index day, or before the first computation the listing's first priced day, never earlier than the
 * listing's latest row starts (open) or ends (closed), so computed history is never rewritten.
 *
 * - {@link basketMatch}: closes the match in force at E, opens a new one (origin `manual`, locked,
 *   confidence 1) at E; if the listing is already matched to that item, only sets it manual, locked
 *   and confidence 1 (its interval stays).
 * - {@link basketUnmatch}: closes the match in force at E, locked (kept unmatched). A listing whose
 *   latest row is already closed has that row locked. A listing with no row at all has nothing to
 *   close, and basket_match cannot hold a row without an item: when the matcher would match it, a
 *   locked row of that item with valid_from = valid_to = E (never in force) records the curator's
 *   refusal; when the matcher proposes nothing, the command refuses (a {@link BasketCommandError}),
 *   as there is no state to pin.
 * - {@link basketLock}: pins (or hands back to the matcher) the listing's latest row as it is.
 * - {@link basketHistory}: the listing's decisions, oldest first.
 *
 * Each command runs in one transaction under the basket-matching lock, syncs the basket file into
 * basket_item first (so item ids are known), and appends one basket_decision row (actor `curator`)
 * when it changes something. Repeating a command changes nothing and logs nothing.
 */
import type pg from 'pg';
import { inTransaction } from '../../src/db/transaction.js';
import { loadBasket, type Basket } from '../../src/domain/basket.js';
import { matchInputOf, matchListing } from '../../src/domain/basket-match.js';
import { syncBasket } from './basket.js';
import { changeDay, logBasketDecisions, nextIndexDay, readBasketListings, type BasketDecision, type BasketListingRow } from './match.js';
import { lockTransaction } from '../../src/db/locks.js';
import { ExpectedError } from '../../src/errors.js';

/**
 * A curator's command that cannot be carried out: an unknown or malformed listing or item id, a
 * retired or unobservable item, or a state the command cannot express. Nothing was written.
 */
export class BasketCommandError extends ExpectedError {
  constructor(message: string) {
    super(message);
    this.name = 'BasketCommandError';
  }
}

/** What a curator's basket command did. */
export interface BasketCommandResult {
  listingId: number;
  /** The listing's item in force before and after the command (null: unmatched). */
  previousItemId: number | null;
  itemId: number | null;
  /** Whether the listing's state is locked after the command. */
  locked: boolean;
  /** The valid_from or valid_to the command set (YYYY-MM-DD), or null when it set none. */
  day: string | null;
  /** False when the listing was already in the requested state (nothing written, nothing logged). */
  changed: boolean;
}

/** Options of the commands (tests pass a basket; the default is the basket file). */
export interface BasketCommandOptions {
  basket?: Basket;
}

/** Runs `f` in a transaction holding the basket-matching lock, after syncing the basket into the tables. */
function curatorTransaction<T>(pool: pg.Pool, basket: Basket, f: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, async (client) => {
    await lockTransaction(client, 'basketMatch');
    await syncBasket(client, basket);
    return f(client);
  });
}

function checkId(id: number, what: string): void {
  if (!Number.isSafeInteger(id) || id <= 0) throw new BasketCommandError(`${what} must be a positive integer, not "${id}"`);
}

/** The listing with its basket state, locked for update. @throws BasketCommandError when unknown. */
async function listing(client: pg.PoolClient, id: number): Promise<BasketListingRow> {
  checkId(id, 'listing id');
  await client.query('SELECT 1 FROM listing WHERE id = $1 FOR UPDATE', [id]);
  const [row] = await readBasketListings(client, [id]);
  if (!row) throw new BasketCommandError(`no listing ${id}`);
  return row;
}

const inForce = (l: BasketListingRow) => (l.state && l.state.validTo === null ? l.state.itemId : null);
const noteOf = (note: string | undefined) => (note ? { note } : {});

/**
 * Matches listing `listingId` to basket item `itemId` by hand: origin `manual`, locked, confidence 1,
 * from E (see the module comment); the match in force, if any, is closed at E. When the listing is
 * already matched to `itemId`, its row is only made manual, locked and confidence 1.
 * @returns what was done (`changed` false when the listing already had that locked manual match).
 * @throws BasketCommandError for an unknown listing or item, or an item that is retired (not in the
 *   basket file any more) or not observable on shelves; the database's error otherwise.
 */
export async function basketMatch(pool: pg.Pool, listingId: number, itemId: number, note?: string, opts: BasketCommandOptions = {}): Promise<BasketCommandResult> {
  const basket = opts.basket ?? loadBasket();
  return curatorTransaction(pool, basket, async (client) => {
    const l = await listing(client, listingId);
    checkId(itemId, 'item id');
    const { rows } = await client.query<{ name: string; active: boolean; observable: boolean }>(
      'SELECT i.name, i.active, g.observable FROM basket_item i JOIN basket_group g ON g.id = i.group_id WHERE i.id = $1',
      [itemId],
    );
    if (rows.length === 0) throw new BasketCommandError(`no basket item ${itemId}`);
    if (!rows[0].active) throw new BasketCommandError(`basket item ${itemId} (${rows[0].name}) is retired: it is no longer in the basket file`);
    if (!rows[0].observable) throw new BasketCommandError(`basket item ${itemId} (${rows[0].name}) is not observable on supermarket shelves`);
    const was = inForce(l);
    const s = l.state;
    if (s && was === itemId) {
      if (s.origin === 'manual' && s.locked && s.confidence === 1) return { listingId: l.id, previousItemId: was, itemId, locked: true, day: null, changed: false };
      await client.query("UPDATE basket_match SET origin = 'manual', locked = true, confidence = 1 WHERE id = $1", [s.id]);
      await logBasketDecisions(client, [{
        listingId: l.id, action: 'match', itemId, previousItemId: was, confidence: 1, locked: true, actor: 'curator', day: null,
        detail: { command: 'match', confirmed: { origin: s.origin, locked: s.locked, confidence: s.confidence, valid_from: s.validFrom }, ...noteOf(note) },
      }]);
      return { listingId: l.id, previousItemId: was, itemId, locked: true, day: null, changed: true };
    }
    const day = changeDay(l, await nextIndexDay(client));
    if (was !== null) await client.query('UPDATE basket_match SET valid_to = $2 WHERE id = $1', [s!.id, day]);
    await client.query(
      `INSERT INTO basket_match (item_id, listing_id, origin, locked, confidence, valid_from) VALUES ($1, $2, 'manual', true, 1, $3)`,
      [itemId, l.id, day],
    );
    await logBasketDecisions(client, [{
      listingId: l.id, action: was === null ? 'match' : 'rematch', itemId, previousItemId: was, confidence: 1, locked: true, actor: 'curator', day,
      detail: { command: 'match', ...noteOf(note) },
    }]);
    return { listingId: l.id, previousItemId: was, itemId, locked: true, day, changed: true };
  });
}

/**
 * Unmatches listing `listingId` and keeps it unmatched: the match in force is closed at E and
 * locked, so the matcher never re-adds it (see the module comment for a listing never matched).
 * @returns what was done (`changed` false when the listing was already kept unmatched).
 * @throws BasketCommandError for an unknown listing, or a listing with no basket_match row that the
 *   matcher would not match either (no state to pin); the database's error otherwise.
 */
export async function basketUnmatch(pool: pg.Pool, listingId: number, note?: string, opts: BasketCommandOptions = {}): Promise<BasketCommandResult> {
  const basket = opts.basket ?? loadBasket();
  return curatorTransaction(pool, basket, async (client) => {
    const l = await listing(client, listingId);
    const s = l.state;
    const was = inForce(l);
    if (s && s.validTo !== null && s.locked) return { listingId: l.id, previousItemId: null, itemId: null, locked: true, day: null, changed: false };
    let decision: BasketDecision;
    if (s && s.validTo !== null) {
      // Already unmatched (by the matcher): pin that state.
      await client.query('UPDATE basket_match SET locked = true WHERE id = $1', [s.id]);
      decision = {
        listingId: l.id, action: 'unmatch', itemId: null, previousItemId: null, confidence: null, locked: true, actor: 'curator', day: null,
        detail: { command: 'unmatch', kept_unmatched: { item_id: s.itemId, valid_from: s.validFrom, valid_to: s.validTo }, ...noteOf(note) },
      };
    } else if (s) {
      const day = changeDay(l, await nextIndexDay(client));
      await client.query('UPDATE basket_match SET valid_to = $2, locked = true WHERE id = $1', [s.id, day]);
      decision = {
        listingId: l.id, action: 'unmatch', itemId: null, previousItemId: was, confidence: null, locked: true, actor: 'curator', day,
        detail: { command: 'unmatch', was: { item_id: s.itemId, origin: s.origin, confidence: s.confidence }, ...noteOf(note) },
      };
    } else {
      const c = matchListing(matchInputOf(l, l.storedKind), basket.items); // as the matcher proposes by default (kinds: stored)
      if (!c) {
        throw new BasketCommandError(
          `listing ${l.id} has no basket match and the matcher proposes none: there is no match to remove (basket_match records a kept-unmatched state only as a closed row of an item)`,
        );
      }
      const day = changeDay(l, await nextIndexDay(client));
      await client.query(
        `INSERT INTO basket_match (item_id, listing_id, origin, locked, confidence, valid_from, valid_to) VALUES ($1, $2, 'manual', true, NULL, $3, $3)`,
        [c.item.id, l.id, day],
      );
      decision = {
        listingId: l.id, action: 'unmatch', itemId: null, previousItemId: null, confidence: null, locked: true, actor: 'curator', day,
        detail: { command: 'unmatch', refused: { item_id: c.item.id, keyword: c.keyword, confidence: c.confidence }, never_in_force: true, ...noteOf(note) },
      };
    }
    await logBasketDecisions(client, [decision]);
    return { listingId: l.id, previousItemId: was, itemId: null, locked: true, day: decision.day, changed: true };
  });
}

/**
 * Locks (`locked` true) or unlocks listing `listingId`'s basket state as it is: matched to its
 * item, or unmatched. Unlocked, the listing is the matcher's again (its next run may change it).
 * Unlocking a listing with no basket_match row changes nothing.
 * @returns what was done (`changed` false when the state already had that lock).
 * @throws BasketCommandError for an unknown listing, or locking a listing with no basket_match row
 *   (use {@link basketMatch} or {@link basketUnmatch}); the database's error otherwise.
 */
export async function basketLock(pool: pg.Pool, listingId: number, locked: boolean, note?: string, opts: BasketCommandOptions = {}): Promise<BasketCommandResult> {
  const basket = opts.basket ?? loadBasket();
  return curatorTransaction(pool, basket, async (client) => {
    const l = await listing(client, listingId);
    const s = l.state;
    const item = inForce(l);
    if (!s) {
      if (!locked) return { listingId: l.id, previousItemId: null, itemId: null, locked: false, day: null, changed: false };
      throw new BasketCommandError(`listing ${l.id} has no basket match to lock: match it (basket match) or unmatch it (basket unmatch) instead`);
    }
    if (s.locked === locked) return { listingId: l.id, previousItemId: item, itemId: item, locked, day: null, changed: false };
    await client.query('UPDATE basket_match SET locked = $2 WHERE id = $1', [s.id, locked]);
    await logBasketDecisions(client, [{
      listingId: l.id, action: locked ? 'lock' : 'unlock', itemId: item, previousItemId: item, confidence: s.confidence, locked, actor: 'curator', day: null,
      detail: { command: locked ? 'lock' : 'unlock', state: item === null ? 'unmatched' : 'matched', ...noteOf(note) },
    }]);
    return { listingId: l.id, previousItemId: item, itemId: item, locked, day: null, changed: true };
  });
}

/** One basket_decision row of {@link basketHistory}. */
export interface BasketHistoryEntry {
  /** Decision id (bigint, as text). */
  id: string;
  action: BasketDecision['action'];
  itemId: number | null;
  previousItemId: number | null;
  confidence: number | null;
  locked: boolean;
  actor: BasketDecision['actor'];
  /** The valid_from or valid_to the decision set (YYYY-MM-DD), or null. */
  day: string | null;
  detail: unknown;
  /** ISO 8601 instant. */
  decidedAt: string;
}

/**
 * The basket decision log of listing `listingId`, oldest first.
 * @throws BasketCommandError for a malformed or unknown listing id.
 */
export async function basketHistory(pool: pg.Pool, listingId: number): Promise<BasketHistoryEntry[]> {
  checkId(listingId, 'listing id');
  const known = await pool.query('SELECT 1 FROM listing WHERE id = $1', [listingId]);
  if (known.rowCount === 0) throw new BasketCommandError(`no listing ${listingId}`);
  const { rows } = await pool.query<{
    id: string; action: BasketDecision['action']; item_id: number | null; previous_item_id: number | null; confidence: number | null;
    locked: boolean; actor: BasketDecision['actor']; day: string | null; detail: unknown; decided_at: Date;
  }>(
    `SELECT id::text AS id, action, item_id, previous_item_id, confidence, locked, actor, to_char(day, 'YYYY-MM-DD') AS day, detail, decided_at
     FROM basket_decision WHERE listing_id = $1 ORDER BY basket_decision.id`,
    [listingId],
  );
  return rows.map((r) => ({
    id: r.id, action: r.action, itemId: r.item_id, previousItemId: r.previous_item_id, confidence: r.confidence, locked: r.locked,
    actor: r.actor, day: r.day, detail: r.detail, decidedAt: r.decided_at.toISOString(),
  }));
}
