/**
 * History (price spans as parallel arrays) and RetailerHistory; root fields `listingHistory` and
 * `productHistory`; the Listing field `history(store, from, to)` (issue 20), batched through
 * `listingHistoryLoader` below. Spans oldest first; money in integer NZ cents; days `YYYY-MM-DD`
 * (NZ).
 */
import { builder } from '../builder.js';
import type { HistoryColumns } from '../domain/spans.js';
import { BadRequest } from '../errors.js';
import { clipHistory, listingHistories, type HistoryKey } from '../services/graph-relations.js';
import { listingHistory, productHistory, type RetailerHistory } from '../services/history.js';
import { requestLoader } from './batch.js';

/**
 * A listing's price spans, national (store 0) or at one store (empty arrays when none), by (listing,
 * store): every Listing.history of a request, aliases with other days included, in one read; the
 * days are clipped afterwards.
 */
const listingHistoryLoader = requestLoader((keys: readonly HistoryKey[], ctx) => listingHistories(ctx.pool, keys), {
  cacheKeyFn: (k) => `${k.listingId}:${k.storeId}`,
});

/** The History type (price spans as parallel arrays), also Listing.history's. */
export const HistoryRef = builder.objectRef<HistoryColumns>('History').implement({
  description: 'Price spans as parallel arrays: span i runs from from[i] to to[i] inclusive at price[i].',
  fields: (t) => ({
    from: t.expose('from', { type: ['Day'], description: 'First day of each span.' }),
    to: t.expose('to', { type: ['Day'], description: 'Last day each span was observed.' }),
    price: t.exposeIntList('price', { description: 'Shelf price, cents.' }),
    promo: t.exposeIntList('promo', { nullable: { list: false, items: true }, description: 'Promotional price, cents.' }),
    kind: t.exposeIntList('kind', { nullable: { list: false, items: true }, description: 'PromoKind.' }),
    multibuyQty: t.exposeIntList('multibuy_qty', { nullable: { list: false, items: true } }),
    multibuyPrice: t.exposeIntList('multibuy_price', { nullable: { list: false, items: true } }),
  }),
});

const RetailerHistoryRef = builder.objectRef<RetailerHistory>('RetailerHistory').implement({
  description: "One chain's national price history of a product.",
  fields: (t) => ({
    retailer: t.exposeString('retailer', { description: 'Retailer slug.' }),
    history: t.field({ type: HistoryRef, resolve: (r) => r.history }),
  }),
});

builder.queryFields((t) => ({
  listingHistory: t.field({
    type: HistoryRef,
    description: 'Price spans of a listing: national (store 0) or at one store. Unknown listing or store: empty arrays.',
    args: {
      id: t.arg.int({ required: true }),
      store: t.arg.int({ defaultValue: 0, description: 'Store id; 0 is the national series.' }),
    },
    resolve: (_root, { id, store }, ctx) => listingHistory(ctx.pool, id, store ?? 0),
  }),
  productHistory: t.field({
    type: [RetailerHistoryRef],
    description: 'National price spans of every listing linked to a product, one entry per chain (empty when nothing is linked).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, { id }, ctx) => productHistory(ctx.pool, id),
  }),
}));

builder.prismaObjectField('Listing', 'history', (t) =>
  t.field({
    type: HistoryRef,
    description:
      'Its price spans, oldest first: national (store 0) or at one store; with from and/or to, only the spans overlapping those days, clipped to them. Unknown store: empty arrays. BAD_REQUEST when from is after to.',
    args: {
      store: t.arg.int({ defaultValue: 0, description: 'Store id; 0 is the national series.' }),
      from: t.arg({ type: 'Day', description: 'First day, inclusive (default: the first span).' }),
      to: t.arg({ type: 'Day', description: 'Last day, inclusive (default: the last span).' }),
    },
    resolve: async (l, { store, from, to }, ctx) => {
      if (from && to && from > to) throw new BadRequest(`from (${from}) is after to (${to})`);
      const history = await listingHistoryLoader(ctx).load({ listingId: l.id, storeId: store ?? 0 });
      return from || to ? clipHistory(history, from ?? null, to ?? null) : history;
    },
  }),
);
