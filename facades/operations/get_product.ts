/** get_product: GET /api/v1/products/{id} → ProductDetail (404 when unknown). */
import { z } from 'zod';
import { defineOperation, idParam } from '../operation.js';
import type { get_productQuery } from '../generated/operations.js';
import { ProductDetail, type Offer } from '../resources.js';
import { present, priceFields } from '../shapes.js';

/** One offer of the document's `product` selection. */
type OfferData = NonNullable<get_productQuery['product']>['offers'][number];

/** An offer in the contract's field order, its national price flattened in. */
function offer({ current, ...o }: OfferData): Offer {
  return {
    id: o.id,
    retailer: o.retailer,
    retailer_name: o.retailer_name,
    name: o.name,
    brand: o.brand,
    size_text: o.size_text,
    qty: o.qty,
    unit: o.unit,
    pack_count: o.pack_count,
    weighable: o.weighable,
    ...priceFields(current),
    price_day: current?.day ?? null,
    image: o.image,
    available: o.available,
    last_seen: o.last_seen,
    method: o.method,
    confidence: o.confidence,
    locked: o.locked,
    stores: o.stores,
    stores_total: o.stores_total,
    category_path: o.category_path,
    retailer_url: o.retailer_url,
    origin: o.origin,
    package_type: o.package_type,
  };
}

/** The operation entry. */
export default defineOperation({
  name: 'get_product',
  summary: 'One product linked across chains: its offers (available and cheapest first) and alternatives.',
  method: 'GET',
  family: 'light',
  path: '/api/v1/products/{id}',
  description:
    'Offers: one per linked listing, available and cheapest first. Up to 16 alternatives, cheapest first, flagged when house brand. 404 when the product is unknown.',
  params: z.object({ id: idParam.describe('Product id.') }),
  variables: (p) => ({ id: p.id }),
  result: ProductDetail,
  errors: [404],
  shape: (data) => {
    const p = present(data.product, 'product');
    return {
      id: p.id,
      name: p.name,
      brand: p.brand,
      // Brands are a curated list in code (src/domain/brands.ts), not rows with ids: brand_id stays null.
      brand_id: null,
      size_text: p.size_text,
      pack_count: p.pack_count,
      qty: p.qty,
      unit: p.unit,
      image: p.image,
      weighable: p.weighable,
      aliases: p.aliases,
      retailers: p.retailers,
      gtins: p.gtins,
      attributes: p.attributes,
      generic_id: p.generic_id,
      generic_label: p.generic_label,
      generic_kind: p.generic_kind,
      generic_kind_label: p.generic_kind_label,
      shelf_slug: p.shelf_slug,
      shelf_label: p.shelf_label,
      compare_unit: p.compare_unit,
      brand_owner: p.brand_owner,
      brand_parent: p.brand_parent,
      offers: p.offers.map(offer),
      alternatives: p.alternatives,
    };
  },
});
