/** Retailer (a chain) and the root field `retailers`. */
import { builder } from '../builder.js';

builder.prismaObject('Retailer', {
  description: 'A supermarket chain.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    slug: t.exposeString('slug', { description: 'Lowercase key used in every retailer parameter.' }),
    name: t.exposeString('name'),
    nationalOnly: t.exposeBoolean('nationalOnly', { description: 'Prices are national only (no store panel).' }),
    website: t.exposeString('website', { nullable: true }),
    listings: t.relationCount('listings', { description: 'Catalogue size (listings ever seen).' }),
    stores: t.relationCount('stores', { where: { active: true }, description: 'Active stores in the price panel.' }),
    lastRun: t.expose('lastRun', { type: 'DateTime', nullable: true, description: 'When the catalogue was last collected.' }),
    lastDay: t.expose('lastNationalDay', { type: 'Day', nullable: true, description: 'Latest collection day of the chain.' }),
  }),
});

builder.queryField('retailers', (t) =>
  t.prismaField({
    type: ['Retailer'],
    description: 'Every chain, largest catalogue first.',
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.retailer.findMany({ ...query, orderBy: [{ listings: { _count: 'desc' } }, { slug: 'asc' }] }),
  }),
);
