/**
 * A SYNTHETIC catalogue for the search latency bench (test/bench/search.ts): the generated listings
 * of workers/synth/catalogue.ts (one source with `npm run synth`), not real products.
 *
 * The listings reach the database through the real ingest (workers/ingest), as national
 * observations of one day, so they get the same columns, generated search columns and indexes as
 * collected data.
 */
import type { RawRecord } from '../../workers/ingest/format.js';
import type { SyntheticListing } from '../../workers/synth/catalogue.js';

export { SYNTHETIC_RETAILERS, syntheticListings, type SyntheticListing } from '../../workers/synth/catalogue.js';

/** The day the synthetic observations are ingested on. */
export const SYNTHETIC_DAY = '2026-01-05';

/** The listings as national observations of {@link SYNTHETIC_DAY}, in the ingest's raw format. */
export function* syntheticObservations(listings: Iterable<SyntheticListing>): Generator<RawRecord> {
  let line = 1;
  for (const l of listings) {
    yield {
      line: ++line,
      record: {
        day: SYNTHETIC_DAY,
        retailer: l.retailer,
        store: null,
        external_id: l.externalId,
        price: l.price,
        name: l.name,
        brand: l.brand,
        size_text: l.sizeText,
        gtin: l.gtin,
        category_path: l.categoryPath,
      },
    };
  }
}
