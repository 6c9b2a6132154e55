/**
 * Shrinkflation (issue 32 item 4, beyond the contract): the types ShrinkEvent and Shrinkflation and
 * the root field `shrinkflation(retailer, shelf, days, limit)`. Rule in src/domain/shrinkflation.ts;
 * read in src/services/shrinkflation.ts (one answer, at most three statements). Money in integer NZ
 * cents; unit prices in cents per compare unit; days are NZ calendar days.
 */
import { builder } from '../builder.js';
import { SHRINK_DAYS, SHRINK_LIMIT } from '../domain/shrinkflation.js';
import { shrinkflationEvents, type ShrinkflationEvent, type ShrinkflationAnswer } from '../services/shrinkflation.js';

const ShrinkUnitEnum = builder.enumType('ShrinkUnit', {
  description: 'Unit of a pack total compared for shrinkflation: grams, millilitres, items or sheets.',
  values: ['g', 'ml', 'each', 'sheet'] as const,
});

const ShrinkEventRef = builder.objectRef<ShrinkflationEvent>('ShrinkEvent').implement({
  description: "A listing's pack got smaller while its shelf price stayed the same or rose (the national series), so its unit price rose.",
  fields: (t) => ({
    listingId: t.exposeInt('listing_id', { description: 'The listing.' }),
    retailer: t.exposeString('retailer', { description: 'Its chain (retailer slug).' }),
    name: t.exposeString('name', { description: "The listing's name." }),
    brand: t.exposeString('brand', { nullable: true, description: "The listing's brand; null when unknown." }),
    day: t.expose('day', { type: 'Day', description: 'The first day the smaller size was observed.' }),
    oldSize: t.exposeString('old_size', { description: 'The size before, as the chain printed it.' }),
    newSize: t.exposeString('new_size', { description: 'The size from `day`, as the chain printed it.' }),
    oldQty: t.exposeFloat('old_qty', { description: 'Pack total before (quantity × pack count), in `unit`.' }),
    newQty: t.exposeFloat('new_qty', { description: 'Pack total from `day`, in `unit`.' }),
    unit: t.field({ type: ShrinkUnitEnum, description: 'Unit of the pack totals.', resolve: (e) => e.unit }),
    oldPrice: t.exposeInt('old_price', { description: 'Shelf price before the change (the national span in force the day before), cents.' }),
    newPrice: t.exposeInt('new_price', { description: 'Shelf price on `day`, cents (≥ oldPrice).' }),
    compareUnit: t.exposeString('compare_unit', { description: 'What the unit prices are per: kg, l, each or 100sheet.' }),
    oldUnitPrice: t.exposeFloat('old_unit_price', { description: 'Cents per compare unit before, to a hundredth of a cent.' }),
    newUnitPrice: t.exposeFloat('new_unit_price', { description: 'Cents per compare unit from `day`, to a hundredth of a cent.' }),
    unitPriceChange: t.exposeFloat('unit_price_change', { description: 'Unit price rise, per cent to a tenth ((new ÷ old − 1) × 100).' }),
  }),
});

const ShrinkflationRef = builder.objectRef<ShrinkflationAnswer>('Shrinkflation').implement({
  description: 'Shrinkflation events whose change day is within the window ending at asOf (the last observed day, not today), newest first.',
  fields: (t) => ({
    asOf: t.expose('as_of', { type: 'Day', nullable: true, description: "The window's last day: the data's last observed day (the chain's with retailer); null when nothing was collected." }),
    from: t.expose('from', { type: 'Day', nullable: true, description: "The window's first day (asOf − days + 1); null with asOf." }),
    days: t.exposeInt('days', { description: 'The window length in days.' }),
    total: t.exposeInt('total', { description: 'Events in the window under the filters (not only the page).' }),
    events: t.field({
      type: [ShrinkEventRef],
      description: 'The newest events: change day descending, then the largest unit-price rise, then listing id.',
      resolve: (f) => f.events,
    }),
  }),
});

builder.queryField('shrinkflation', (t) =>
  t.field({
    type: ShrinkflationRef,
    description:
      `Listings whose pack got smaller at a flat or higher shelf price (unit price up), change day within the last \`days\` days ending at asOf. BAD_REQUEST for an unknown retailer or shelf, days outside ${SHRINK_DAYS.min} to ${SHRINK_DAYS.max} or limit outside ${SHRINK_LIMIT.min} to ${SHRINK_LIMIT.max}; NOT_FOUND for an unknown listing.`,
    args: {
      retailer: t.arg.string({ description: "Retailer slug: only that chain's listings; unknown gives BAD_REQUEST." }),
      shelf: t.arg.string({ description: 'Shelf slug (shelves): only listings whose kind is on that shelf or below it; unknown gives BAD_REQUEST.' }),
      listing: t.arg.int({ description: "Listing id: only that listing's events; unknown gives NOT_FOUND." }),
      days: t.arg.int({ defaultValue: SHRINK_DAYS.default, description: `Window length, ${SHRINK_DAYS.min} to ${SHRINK_DAYS.max} days ending at asOf.` }),
      limit: t.arg.int({ defaultValue: SHRINK_LIMIT.default, description: `Events returned, ${SHRINK_LIMIT.min} to ${SHRINK_LIMIT.max}.` }),
    },
    resolve: (_root, args, ctx) => shrinkflationEvents(ctx.pool, args),
  }),
);
