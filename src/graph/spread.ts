/**
 * Spread (a chain's daily store spread of a product as parallel arrays) and RetailerSpread; root
 * field `productSpread`. Days oldest first, `YYYY-MM-DD` (NZ); money in integer NZ cents. How the
 * statistics of several listings of one chain combine is documented at productSpreads
 * (src/services/product-prices.ts). `productSpread` is a loadable field: every product of a request
 * (aliases) in one statement.
 */
import { builder } from '../builder.js';
import type { DailyStatsColumns } from '../services/prices.js';
import { productSpreads, type RetailerSpread } from '../services/product-prices.js';
import { byId } from './batch.js';

const SpreadRef = builder.objectRef<DailyStatsColumns>('Spread').implement({
  description: "Daily minimum, median and maximum store shelf price of a product at one chain, as parallel arrays (oldest day first).",
  fields: (t) => ({
    day: t.expose('day', { type: ['Day'] }),
    min: t.exposeIntList('min', { description: 'Cheapest store price, cents.' }),
    med: t.exposeIntList('med', { description: 'Median store price, cents.' }),
    max: t.exposeIntList('max', { description: 'Dearest store price, cents.' }),
    n: t.exposeIntList('n', { description: 'Stores reporting that day.' }),
  }),
});

const RetailerSpreadRef = builder.objectRef<RetailerSpread>('RetailerSpread').implement({
  description: "One chain's daily store spread of a product.",
  fields: (t) => ({
    retailer: t.exposeString('retailer', { description: 'Retailer slug.' }),
    spread: t.field({ type: SpreadRef, resolve: (r) => r.spread }),
  }),
});

builder.queryField('productSpread', (t) =>
  t.loadableList({
    type: RetailerSpreadRef,
    description:
      "Daily store spread of a product over the last 365 days (up to each chain's latest collection), one entry per chain (slug order). Empty when nothing linked has store statistics or the product is unknown.",
    args: { id: t.arg.int({ required: true }) },
    load: byId((ctx, ids) => productSpreads(ctx.pool, ids), (): RetailerSpread[] => []),
    resolve: (_root, { id }) => id,
  }),
);
