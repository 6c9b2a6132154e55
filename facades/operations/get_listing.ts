/** get_listing: GET /api/v1/listings/{id} → ListingDetail (404 when unknown). */
import { z } from 'zod';
import { defineOperation, idParam } from '../operation.js';
import { ListingDetail, type DailyStats, type ListingStorePrice } from '../resources.js';
import { statsOrEmpty, type CurrentData } from '../shapes.js';

/** The document's `listing` selection. */
export interface ListingData {
  id: number;
  retailer: string;
  retailer_slug: string;
  external_id: string;
  name: string;
  brand: string | null;
  size_text: string | null;
  qty: number | null;
  unit: string | null;
  gtin: number | null;
  category_path: string[];
  first_seen: string;
  last_seen: string;
  image: string | null;
  available: boolean;
  product_id: number | null;
  stores_total: number;
  current: CurrentData | null;
  stores: ListingStorePrice[];
  stats: DailyStats;
  retailer_url: string | null;
}

/** The operation entry. */
export default defineOperation({
  name: 'get_listing',
  summary: "One chain's listing with its current national price, every store's price today and a year of daily store spread.",
  method: 'GET',
  path: '/api/v1/listings/{id}',
  description:
    '`stores` lists every store pricing it today, cheapest first; `stats` covers the last 365 days (an empty object when none). 404 when the listing is unknown.',
  params: z.object({ id: idParam.describe('Listing id.') }),
  variables: (p) => ({ id: p.id }),
  result: ListingDetail,
  errors: [404],
  shape: ({ listing }: { listing: ListingData }): ListingDetail => ({
    id: listing.id,
    retailer: listing.retailer,
    retailer_slug: listing.retailer_slug,
    external_id: listing.external_id,
    name: listing.name,
    brand: listing.brand,
    size_text: listing.size_text,
    qty: listing.qty,
    unit: listing.unit as ListingDetail['unit'],
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
  }),
});
