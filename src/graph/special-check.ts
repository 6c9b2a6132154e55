/**
 * "Is this special real?" (issue 16 item 6, beyond the contract): the SpecialCheck type (a current
 * deal against its listing's national history in the 90 days before the promotion started: usual
 * and lowest prices, a shelf-price rise shortly before, a verdict), the SpecialVerdict enum, the
 * Deal field `check` and the Listing field `specialChecks`. Rules in src/domain/special-check.ts;
 * rows precomputed by the derived-views worker and read in one batched statement per request
 * (src/services/special-check.ts, through `specialChecksLoader` below, shared by both fields).
 */
import { builder } from '../builder.js';
import { SPECIAL_VERDICTS, type ShelfRise } from '../domain/special-check.js';
import { listingSpecialChecks, type SpecialCheckRow } from '../services/special-check.js';
import { byId, requestLoader } from './batch.js';
import { DealKindEnum, DealRef } from './deals.js';

/** A listing's special checks (one per deal it is on, in deal-kind order; empty when none), by listing id: Deal.check and Listing.specialChecks. */
const specialChecksLoader = requestLoader<number, SpecialCheckRow[]>(byId((ctx, ids) => listingSpecialChecks(ctx.pool, ids), () => []));

/** The SpecialVerdict enum, in the order the verdicts are tried. */
export const SpecialVerdictEnum = builder.enumType('SpecialVerdict', {
  description:
    'insufficient_history: under 28 observed days in the window; no_usual_price: on a special every observed day of the window; inflated: the shelf price rose within 30 days before the promotion and the promo price is not below the price before the rise; above_usual: not below the usual price; not_lowest: a shopper paid less within the window; genuine: below the usual price and no more than the lowest of the window.',
  values: SPECIAL_VERDICTS,
});

const ShelfRiseRef = builder.objectRef<ShelfRise>('ShelfRise').implement({
  description: 'A shelf-price rise within 30 days before a promotion started.',
  fields: (t) => ({
    from: t.exposeInt('from', { description: 'Shelf price before the rise, cents.' }),
    to: t.exposeInt('to', { description: 'Shelf price on the day the promotion started, cents.' }),
    day: t.expose('day', { type: 'Day', description: 'First day at the higher price.' }),
  }),
});

/** The SpecialCheck type. */
export const SpecialCheckRef = builder.objectRef<SpecialCheckRow>('SpecialCheck').implement({
  description:
    "A current promotion compared with the listing's own national price history in the 90 days before the promotion started (a derived view, recomputed at most every ten minutes). Money in cents per unit (per kg when sold by weight).",
  fields: (t) => ({
    kind: t.field({ type: DealKindEnum, resolve: (c) => c.kind }),
    verdict: t.field({ type: SpecialVerdictEnum, resolve: (c) => c.verdict }),
    promoPrice: t.exposeFloat('promo_price', { description: 'Unit price on the promotion, cents (multibuy: set price ÷ set size, may be fractional).' }),
    shelfPrice: t.exposeInt('shelf_price', { description: 'Current shelf price, cents.' }),
    promoSince: t.expose('promo_since', { type: 'Day', description: 'First day of the current unbroken run of this promotion.' }),
    windowFrom: t.expose('window_from', { type: 'Day', description: 'First day of the window (promoSince − 90).' }),
    windowTo: t.expose('window_to', { type: 'Day', description: 'Last day of the window (promoSince − 1).' }),
    daysObserved: t.exposeInt('days_observed', { description: 'Window days with a known price.' }),
    promoDays: t.exposeInt('promo_days', { description: 'Observed window days on a promotion of the same kind.' }),
    usualPrice: t.exposeInt('usual_price', {
      nullable: true,
      description: 'The shelf price in force on the most observed window days without a special (ties: the most recent), cents; null when none.',
    }),
    lowestPrice: t.exposeInt('lowest_price', {
      nullable: true,
      description: 'Lowest price a shopper without a loyalty card paid for one unit in the window (shelf or special price), cents; null when no day was observed.',
    }),
    lowestShelfPrice: t.exposeInt('lowest_shelf_price', { nullable: true, description: 'Lowest shelf price of the window, cents.' }),
    shelfRise: t.field({ type: ShelfRiseRef, nullable: true, resolve: (c) => c.shelf_rise }),
    savingVsUsual: t.exposeFloat('saving_vs_usual', { nullable: true, description: 'usualPrice − promoPrice, cents (negative: dearer than usual).' }),
  }),
});

builder.objectField(DealRef, 'check', (t) =>
  t.field({
    type: SpecialCheckRef,
    nullable: true,
    description: "This promotion against the listing's history before it started; null until the derived views have checked it.",
    resolve: async (d, _args, ctx) => (await specialChecksLoader(ctx).load(d.listing_id)).find((c) => c.kind === d.kind) ?? null,
  }),
);

builder.prismaObjectField('Listing', 'specialChecks', (t) =>
  t.field({
    type: [SpecialCheckRef],
    description: 'Each current promotion (one per deal kind) against the listing\'s history before it started; empty when it is on no deal.',
    resolve: (l, _args, ctx) => specialChecksLoader(ctx).load(l.id),
  }),
);
