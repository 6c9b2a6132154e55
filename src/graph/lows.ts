/**
 * Historical lows (issue 32 item 2, beyond the contract): the Lows and PriceLow types and the fields
 * `Listing.lows(minDays)` and `Product.lows(minDays)`. Rule in src/domain/lows.ts; every field of a
 * request is read in one batched statement per kind and minDays (src/services/lows.ts through the
 * loaders below). Money in integer NZ cents per unit; days are NZ calendar days.
 */
import type pg from 'pg';
import { builder } from '../builder.js';
import { LOWS_MIN_DAYS } from '../domain/lows.js';
import { BadRequest } from '../errors.js';
import { listingLows, productLows, type LowRow, type LowsRow } from '../services/lows.js';
import { inKeyOrder, requestLoader } from './batch.js';

/** A lows key: the listing or product id and the outlier rule's shortest run. */
interface LowsKey {
  id: number;
  minDays: number;
}

/** Batches keys by minDays (one statement each; a request rarely asks more than one). */
function batchBy(read: (pool: pg.Pool, ids: readonly number[], minDays: number) => Promise<Map<number, LowsRow>>) {
  return requestLoader<LowsKey, LowsRow, string>(
    async (keys, ctx) => {
      const found = new Map<string, LowsRow | Error>();
      for (const minDays of new Set(keys.map((k) => k.minDays))) {
        const ids = [...new Set(keys.filter((k) => k.minDays === minDays).map((k) => k.id))];
        for (const [id, row] of await read(ctx.pool, ids, minDays)) found.set(`${id}:${minDays}`, row);
      }
      return inKeyOrder(keys.map((k) => `${k.id}:${k.minDays}`), found, () => new Error('lows missing'));
    },
    { cacheKeyFn: (k) => `${k.id}:${k.minDays}` },
  );
}

const listingLowsLoader = batchBy(listingLows);
const productLowsLoader = batchBy(productLows);

/** The minDays argument, checked: an integer of {@link LOWS_MIN_DAYS}. @throws BadRequest when out of range. */
function minDaysOf(value: number | null | undefined): number {
  const n = value ?? LOWS_MIN_DAYS.default;
  if (!Number.isInteger(n) || n < LOWS_MIN_DAYS.min || n > LOWS_MIN_DAYS.max) {
    throw new BadRequest(`minDays must be ${LOWS_MIN_DAYS.min} to ${LOWS_MIN_DAYS.max}`);
  }
  return n;
}

const MIN_DAYS_DESCRIPTION = `Ignore a price that held fewer than this many days in a row (one-day outliers at the default ${LOWS_MIN_DAYS.default}); ${LOWS_MIN_DAYS.min} to ${LOWS_MIN_DAYS.max}.`;

/** The PriceLow type: one window's low. */
const PriceLowRef = builder.objectRef<LowRow>('PriceLow').implement({
  description: 'The lowest price a shopper without a loyalty card paid for one unit in a window (shelf price, or a special open to everyone; never club, multibuy or clearance prices).',
  fields: (t) => ({
    price: t.exposeInt('price', { description: 'Lowest no-card price, cents (per kg when sold by weight).' }),
    day: t.expose('day', { type: 'Day', description: 'The most recent day of the window it was paid.' }),
    days: t.exposeInt('days', { description: 'Days of the window it was paid.' }),
    stores: t.exposeInt('stores', {
      nullable: true,
      description: "Stores of the chain whose own price was this on that day; null when no store price covers the day (a national-only chain, or a day known from the chain's national price log only).",
    }),
    listingId: t.exposeInt('listing_id', { description: 'The listing that paid it (for a product: which of its listings).' }),
    retailer: t.exposeString('retailer', { description: 'Its chain (retailer slug).' }),
  }),
});

/** The Lows type: the three windows. */
const LowsRef = builder.objectRef<LowsRow>('Lows').implement({
  description: 'Historical lows over the national price series: the last 90 and 365 days ending at asOf (the last observed day, not today) and all history; a window is null when no price that held minDays days is in it.',
  fields: (t) => ({
    asOf: t.expose('as_of', { type: 'Day', nullable: true, description: 'Last observed day the windows end at; null when never priced.' }),
    minDays: t.exposeInt('min_days', { description: 'The outlier rule applied: prices that held fewer days in a row were ignored.' }),
    last90Days: t.field({ type: PriceLowRef, nullable: true, description: 'asOf − 89 … asOf.', resolve: (l) => l.last_90_days }),
    last365Days: t.field({ type: PriceLowRef, nullable: true, description: 'asOf − 364 … asOf.', resolve: (l) => l.last_365_days }),
    allTime: t.field({ type: PriceLowRef, nullable: true, description: 'All history.', resolve: (l) => l.all_time }),
  }),
});

builder.prismaObjectField('Listing', 'lows', (t) =>
  t.field({
    type: LowsRef,
    description: 'Its historical lows: the lowest no-card price over 90 days, 365 days and all history, with the day and the store count. BAD_REQUEST when minDays is out of range.',
    args: { minDays: t.arg.int({ defaultValue: LOWS_MIN_DAYS.default, description: MIN_DAYS_DESCRIPTION }) },
    resolve: (l, { minDays }, ctx) => listingLowsLoader(ctx).load({ id: l.id, minDays: minDaysOf(minDays) }),
  }),
);

builder.prismaObjectField('Product', 'lows', (t) =>
  t.field({
    type: LowsRef,
    description: 'Its historical lows across its linked listings (each window: the lowest of theirs, with the listing and chain). BAD_REQUEST when minDays is out of range.',
    args: { minDays: t.arg.int({ defaultValue: LOWS_MIN_DAYS.default, description: MIN_DAYS_DESCRIPTION }) },
    resolve: (p, { minDays }, ctx) => productLowsLoader(ctx).load({ id: p.id, minDays: minDaysOf(minDays) }),
  }),
);
