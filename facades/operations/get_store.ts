/** get_store: GET /api/v1/stores/{id} → StoreDetail (404 when unknown). */
import { z } from 'zod';
import { defineOperation, idParam } from '../operation.js';
import { StoreDetail } from '../resources.js';
import { present, storeListing, storeResource } from '../shapes.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_store',
  summary: "One store with its basket price level, group levels, biggest markups and markdowns against its chain's national median, price spread and current deals.",
  method: 'GET',
  family: 'heavy',
  path: '/api/v1/stores/{id}',
  description: [
    '`store` is the store as list_stores gives it. `groups` lists each basket group with a level at the store.',
    "`dearer` holds the eight listings with the highest ratio of shelf price to the chain's national median above 1 (highest first), `cheaper` the eight with the lowest ratio below 1 (lowest first); ties by listing id.",
    '`spread` always has all 22 bins (bucket 0: ratio below 0.80; 1 to 20: 0.80 to 1.20 in 0.02 steps; 21: 1.20 and above), zeros included; `listings_priced` is the number of listings priced at the store this week.',
    "`deals` are the store's own promotions this week: a special, club price or multibuy cheaper per unit than the shelf price, as ListingCards carrying the store's price and promotion, biggest saving as a share of the shelf price first (then in cents, then listing id), at most 24.",
    'Levels are recomputed at most every ten minutes. 404 when no store has that id.',
  ].join(' '),
  params: z.object({ id: idParam.describe('Store id (see list_stores).') }),
  variables: (p) => ({ id: p.id }),
  result: StoreDetail,
  errors: [404],
  shape: (data) => {
    const s = present(data.store, 'store');
    return {
      store: storeResource(s),
      groups: s.groups.map((g) => ({ code: g.code, name: g.name, level: g.level, n: g.n })),
      dearer: s.dearer.map(storeListing),
      cheaper: s.cheaper.map(storeListing),
      spread: s.spread.map((b) => ({ bucket: b.bucket, n: b.n })),
      listings_priced: s.listings_priced,
      deals: s.deals.map((d) => ({
        id: d.id,
        retailer: d.retailer,
        name: d.name,
        brand: d.brand,
        size_text: d.size_text,
        price: d.price,
        promo_price: d.promo_price,
        promo_kind: d.promo_kind,
        multibuy_qty: d.multibuy_qty,
        multibuy_price: d.multibuy_price,
        image: d.image,
        available: d.available,
        product_id: d.product_id,
      })),
    };
  },
});
