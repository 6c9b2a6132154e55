/**
 * Area price levels (api-spec Area, Areas; issue 16): store levels rolled up by region, urban class
 * and town, each the item-weighted geometric mean of its stores' levels — the premium of the place
 * with the chain mix taken out. Root field `areas`; rows from the derived view area_level
 * (src/services/store-levels.ts areaLevels), one statement.
 */
import { builder } from '../builder.js';
import { areaLevels, type Area, type Areas } from '../services/store-levels.js';

const AreaRef = builder.objectRef<Area>('Area').implement({
  description: 'A region, urban class or town with the price level of its stores.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'Stable key within its scope.' }),
    label: t.exposeString('label'),
    level: t.exposeFloat('level', {
      nullable: true,
      description: "Item-weighted geometric mean of the stores' levels (each against its chain's national median); null when no store has a level.",
    }),
    stores: t.exposeInt('stores', { description: 'Stores in the area.' }),
    chains: t.exposeStringList('chains', { description: 'Retailer slugs with a store in the area.' }),
    towns: t.exposeStringList('towns', { description: 'Towns of the area.' }),
  }),
});

const AreasRef = builder.objectRef<Areas>('Areas').implement({
  description: 'Store levels rolled up by region, by urban class (main centres first) and by town.',
  fields: (t) => ({
    regions: t.field({ type: [AreaRef], resolve: (a) => a.regions }),
    urban: t.field({ type: [AreaRef], description: 'By urban class, main centres first.', resolve: (a) => a.urban }),
    towns: t.field({ type: [AreaRef], resolve: (a) => a.towns }),
  }),
});

builder.queryField('areas', (t) =>
  t.field({
    type: AreasRef,
    description: 'Every region, urban class and town with its price level; empty lists before the derived views are built.',
    resolve: (_root, _args, ctx) => areaLevels(ctx.pool),
  }),
);
