/** get_listing: GET /api/v1/listings/{id} → ListingDetail (404 when unknown). */
import { z } from 'zod';
import { defineOperation, idParam } from '../operation.js';
import { ListingDetail } from '../resources.js';
import { present, statsOrEmpty } from '../shapes.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_listing',
  summary: "One chain's listing with its current national price, every store's price today and a year of daily store spread.",
  method: 'GET',
  family: 'light',
  path: '/api/v1/listings/{id}',
  description:
    '`stores` lists every store pricing it today, cheapest first; `stats` covers the last 365 days (an empty object when none). 404 when the listing is unknown.',
  params: z.object({ id: idParam.describe('Listing id.') }),
  variables: (p) => ({ id: p.id }),
  result: ListingDetail,
  errors: [404],
  shape: (data) => {
    const listing = present(data.listing, 'listing');
    return {
      id: listing.id,
      retailer: listing.retailer,
      retailer_slug: listing.retailer_slug,
      external_id: listing.external_id,
      name: listing.name,
      brand: listing.brand,
      size_text: listing.size_text,
      qty: listing.qty,
      unit: listing.unit,
      gtin: listing.gtin,
      category_path: listing.category_path,
      first_seen: listing.first_seen,
      last_seen: listing.last_seen,
      image: listing.image,
      available: listing.available,
      product_id: listing.product_id,
      stores_total: listing.stores_total,
      current: listing.current,
      stores: listing.stores,
      stats: statsOrEmpty(listing.stats),
      retailer_url: listing.retailer_url,
    };
  },
});
