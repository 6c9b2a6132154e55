/** get_basket_item: GET /api/v1/basket/{id} → BasketItemDetail (404 when unknown). */
import { z } from 'zod';
import { defineOperation, idParam } from '../operation.js';
import { BasketItemDetail } from '../resources.js';
import { present } from '../shapes.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_basket_item',
  summary: 'One food-price-index basket item with every listing currently matched to it and the price that counts.',
  method: 'GET',
  family: 'light',
  path: '/api/v1/basket/{id}',
  description: [
    'Listings are every current match, ordered by retailer slug, then basis price (unpriced last), then listing id.',
    "`basis_price` is the latest national price on the item's basis, in cents to hundredths: per kg or litre for a per-unit item with a weight or volume pack, else the pack price; a special counts, a club price does not. `promo_price` is the special or club price when one applies.",
    "`priced_on` is the last day the price was seen; a listing priced more than 14 days before the index's day is returned but does not count in the index.",
    '`available` is true while the listing is flagged available and was in its chain\'s latest collection. 404 when no active basket item has that id.',
  ].join(' '),
  params: z.object({ id: idParam.describe('Basket item id.') }),
  variables: (p) => ({ id: p.id }),
  result: BasketItemDetail,
  errors: [404],
  shape: (data) => present(data.basketItem, 'basketItem'),
});
