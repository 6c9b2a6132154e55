/**
 * Freshness of the derived views (issue 16 item 1: "each view records the data version it was built
 * from, so a reader can tell how fresh it is"): root field `derivedViews`, one row per view of the
 * `view_run` table written by the derived-views worker (workers/views/run.ts): `stores` (store
 * levels, store listings, list_stores counts), `areas`, `chains` (compare_retailers,
 * get_retailer_levels), `deals` (list_deals, check_special), `shelves` (list_shelves,
 * browse_shelf) and `categories` (browse_retailer). Not part of api-spec; GraphQL only.
 */
import { builder } from '../builder.js';

builder.prismaObject('ViewRun', {
  description: 'One derived view and the build that wrote its rows (the worker rebuilds a view only when its data version changed).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'stores, areas, chains, deals, shelves or categories.' }),
    dataVersion: t.exposeString('dataVersion', {
      description: 'Digest of the inputs the view was built from (collections, basket matches, the index run); equal versions mean equal rows.',
    }),
    builtAt: t.expose('builtAt', { type: 'DateTime', description: 'When the build finished.' }),
    seconds: t.exposeFloat('seconds', { description: 'How long the build took, seconds.' }),
  }),
});

builder.queryField('derivedViews', (t) =>
  t.prismaField({
    type: ['ViewRun'],
    description: 'The derived views with the data version and time of their last build, by name; empty before the first build.',
    resolve: (query, _root, _args, ctx) => ctx.prisma.viewRun.findMany({ ...query, orderBy: { name: 'asc' } }),
  }),
);
