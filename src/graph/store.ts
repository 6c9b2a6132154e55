/** Store (one shop of a chain's price panel), the UrbanClass enum and the root field `stores`. */
import { builder } from '../builder.js';
import { STORE_ORDER, URBAN_CLASSES, storeWhere } from '../services/stores.js';

/** Urban class of a store's town. */
export const UrbanClassEnum = builder.enumType('UrbanClass', { values: URBAN_CLASSES });

builder.prismaObject('Store', {
  description: 'A store of a chain. Coordinates in WGS84 degrees.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    externalId: t.exposeString('externalId', { description: "The retailer's own store id." }),
    retailerSlug: t.string({
      select: { retailer: { select: { slug: true } } },
      resolve: (store) => store.retailer.slug,
    }),
    retailer: t.relation('retailer'),
    name: t.exposeString('name'),
    address: t.exposeString('address', { nullable: true }),
    region: t.exposeString('region', { nullable: true, description: "The retailer's own region code." }),
    lat: t.exposeFloat('lat'),
    lng: t.exposeFloat('lng'),
    town: t.exposeString('town', { description: 'Nearest urban area, or "Rural <region>".' }),
    area: t.exposeString('area', { description: 'Region (regional council).' }),
    urban: t.exposeString('urban', { nullable: true, description: 'Urban class: major, large, medium, small, rural.' }),
    active: t.exposeBoolean('active'),
    day: t.expose('lastDay', { type: 'Day', nullable: true, description: 'Latest day with prices.' }),
    level: t.float({
      nullable: true,
      description: "Basket price level vs the chain's national median (not computed yet: always null).",
      resolve: () => null,
    }),
    nItems: t.int({ description: 'Basket items the level is computed from (0 until levels exist).', resolve: () => 0 }),
    club: t.int({
      description: 'Club-price promotions in force at the latest collection.',
      resolve: async (store, _args, ctx) => (await ctx.loaders.storePromos.load(store.id)).club,
    }),
    sale: t.int({
      description: 'Specials in force at the latest collection.',
      resolve: async (store, _args, ctx) => (await ctx.loaders.storePromos.load(store.id)).sale,
    }),
    multibuy: t.int({
      description: 'Multibuys in force at the latest collection.',
      resolve: async (store, _args, ctx) => (await ctx.loaders.storePromos.load(store.id)).multibuy,
    }),
  }),
});

builder.queryField('stores', (t) =>
  t.prismaField({
    type: ['Store'],
    description: 'Active stores, by chain then name. Text filters are case-insensitive.',
    args: {
      retailer: t.arg.string({ description: 'Retailer slug.' }),
      town: t.arg.string(),
      area: t.arg.string(),
      urban: t.arg({ type: UrbanClassEnum }),
    },
    resolve: (query, _root, args, ctx) =>
      ctx.prisma.store.findMany({ ...query, where: storeWhere(args), orderBy: STORE_ORDER }),
  }),
);
