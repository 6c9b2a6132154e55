/**
 * History (price spans as parallel arrays) and RetailerHistory; root fields `listingHistory` and
 * `productHistory`. Spans oldest first; money in integer NZ cents; days `YYYY-MM-DD` (NZ).
 */
import { builder } from '../builder.js';
import type { HistoryColumns } from '../domain/spans.js';
import { listingHistory, productHistory, type RetailerHistory } from '../services/history.js';

const HistoryRef = builder.objectRef<HistoryColumns>('History').implement({
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
