/**
 * Price changes (issue 32 item 3, beyond the contract): the PriceChanges, PriceChange and
 * PriceChangeScope types and the root field `priceChanges`, the data of list_price_changes and of
 * the feeds under /feeds. Rule in src/domain/price-changes.ts; the read is
 * src/services/price-changes.ts (one statement per answer). Money in integer NZ cents per unit (per
 * kg when sold by weight); days are NZ calendar days.
 */
import { builder } from '../builder.js';
import { CHANGE_DAYS, CHANGE_DIRECTIONS, CHANGE_KINDS, CHANGE_LIMIT } from '../domain/price-changes.js';
import { MAX_QUERY_LENGTH } from '../domain/limits.js';
import { priceChanges, SEARCH_SCOPE, type ChangeScope, type PriceChangeRow, type PriceChanges } from '../services/price-changes.js';
import { DealKindEnum } from './deals.js';

const ChangeKindEnum = builder.enumType('PriceChangeKind', {
  description: 'deal_start: a deal (special, member price or multibuy) began; deal_end: one ended; price: the no-card price changed otherwise.',
  values: CHANGE_KINDS,
});

const ChangeDirectionEnum = builder.enumType('PriceChangeDirection', {
  description: 'drop: the no-card price fell; rise: it rose; any: every change (including deals that leave the no-card price as it was).',
  values: CHANGE_DIRECTIONS,
});

const MovementEnum = builder.enumType('PriceMovement', {
  description: 'How the no-card price moved: drop, rise, or none (a member price or multibuy starting or ending).',
  values: ['drop', 'rise', 'none'] as const,
});

const ScopeTypeEnum = builder.enumType('PriceChangeScopeType', { values: ['listing', 'product', 'retailer', 'search', 'shelf'] as const });

const ScopeRef = builder.objectRef<ChangeScope>('PriceChangeScope').implement({
  description: 'What the changes are of.',
  fields: (t) => ({
    type: t.field({ type: ScopeTypeEnum, resolve: (s) => s.type }),
    key: t.exposeString('key', { description: 'The listing or product id, the retailer or shelf slug, or the search words, as given.' }),
    name: t.exposeString('name', { description: "The listing's, product's, chain's or shelf's name, or the search words." }),
  }),
});

const ChangeRef = builder.objectRef<PriceChangeRow>('PriceChange').implement({
  description: "A change between two consecutive national spans of a listing (src/domain/price-changes.ts): prices are no-card prices (shelf price, or a special open to everyone), cents per unit (per kg when sold by weight).",
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Stable id: listing, day, kind and both prices.' }),
    listingId: t.exposeInt('listing_id'),
    name: t.exposeString('name', { description: "The listing's name as the chain lists it." }),
    retailer: t.exposeString('retailer', { description: "Its chain's slug." }),
    retailerName: t.exposeString('retailer_name', { description: "Its chain's name." }),
    day: t.expose('day', { type: 'Day', description: 'The first day observed at the new price.' }),
    kind: t.field({ type: ChangeKindEnum, resolve: (c) => c.kind }),
    oldPrice: t.exposeInt('old_price', { description: 'No-card price before, cents.' }),
    newPrice: t.exposeInt('new_price', { description: 'No-card price from `day`, cents.' }),
    direction: t.field({ type: MovementEnum, resolve: (c) => c.direction }),
    dealKind: t.field({ type: DealKindEnum, nullable: true, description: 'The deal that began or ended; null for a price change.', resolve: (c) => c.deal_kind }),
    dealPrice: t.exposeFloat('deal_price', { nullable: true, description: "That deal's unit price, cents (a multibuy's set price over its size); null for a price change." }),
  }),
});

const ChangesRef = builder.objectRef<PriceChanges>('PriceChanges').implement({
  description: "One scope's price changes in the window of `days` ending at asOf (the data's last observed day), newest first.",
  fields: (t) => ({
    scope: t.field({ type: ScopeRef, resolve: (c) => c.scope }),
    asOf: t.expose('as_of', { type: 'Day', nullable: true, description: "Latest last observed day of the scope's listings, the window's end; null when none was ever priced." }),
    days: t.exposeInt('days', { description: 'Window length, days, ending at asOf.' }),
    direction: t.field({ type: ChangeDirectionEnum, resolve: (c) => c.direction }),
    kind: t.field({ type: DealKindEnum, nullable: true, description: 'The new-deal filter, or null.', resolve: (c) => c.kind }),
    total: t.exposeInt('total', { description: 'Changes in the window under the filters (not only the page).' }),
    changes: t.field({ type: [ChangeRef], resolve: (c) => c.changes }),
  }),
});

builder.queryField('priceChanges', (t) =>
  t.field({
    type: ChangesRef,
    description: `Price changes of exactly one scope (listingId, productId, retailer, q or shelf) over the national series, newest first. NOT_FOUND for an unknown listing, product, retailer or shelf; BAD_REQUEST for no or several scopes, an empty q or one over ${MAX_QUERY_LENGTH} characters, days outside ${CHANGE_DAYS.min} to ${CHANGE_DAYS.max}, limit outside ${CHANGE_LIMIT.min} to ${CHANGE_LIMIT.max}.`,
    args: {
      listingId: t.arg.int(),
      productId: t.arg.int({ description: 'A product: the changes of its linked listings.' }),
      retailer: t.arg.string({ description: "A chain's slug: all its listings' changes." }),
      kind: t.arg({ type: DealKindEnum, description: 'Only new deals of this kind (deal_start changes).' }),
      q: t.arg.string({ description: `Search words: the changes of the best ${SEARCH_SCOPE} matches (search_listings).` }),
      shelf: t.arg.string({ description: "A shelf's slug (browse_shelf): its listings' changes." }),
      direction: t.arg({ type: ChangeDirectionEnum, defaultValue: 'any' }),
      days: t.arg.int({ defaultValue: CHANGE_DAYS.default, description: `${CHANGE_DAYS.min} to ${CHANGE_DAYS.max}.` }),
      limit: t.arg.int({ defaultValue: CHANGE_LIMIT.default, description: `${CHANGE_LIMIT.min} to ${CHANGE_LIMIT.max}.` }),
    },
    resolve: (_root, args, ctx) => priceChanges({ pool: ctx.pool, search: ctx.search }, args),
  }),
);
