/**
 * New World collector: the Foodstuffs edge API of the New World web shop, per store
 * (`store.external_id` = the Foodstuffs store UUID of the imported store list). The translation is
 * shared with PAK'nSAVE in foodstuffs.ts (shapes and sources there and in
 * test/fixtures/collect/newworld/README.md).
 */
import { foodstuffsCollector } from './foodstuffs.js';
import type { ChainCollector } from './types.js';

/** New World (banner `MNW`, live API origin `https://api-prod.newworld.co.nz`). */
export const newworld: ChainCollector = foodstuffsCollector({
  retailer: 'newworld',
  apiOrigin: 'https://api-prod.newworld.co.nz',
  storeBanner: 'MNW',
});
