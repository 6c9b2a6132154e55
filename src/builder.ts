/**
 * Pothos schema builder: configuration only (plugins, context and scalar types). Types and root
 * fields live in src/graph/, one file per type; src/graph/index.ts builds the schema.
 */
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import PrismaPlugin from '@pothos/plugin-prisma';
import type PrismaTypes from './generated/pothos-prisma-types.js';
import { getDatamodel } from './generated/pothos-prisma-types.js';
import type { Context } from './context.js';

/** The builder every file in src/graph/ registers its types with. */
export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    /** New Zealand calendar day, `YYYY-MM-DD`. */
    Day: { Input: string; Output: string | Date };
    /** Instant, RFC 3339 in UTC. */
    DateTime: { Input: Date; Output: string | Date };
    /** Integer up to 2^53 (barcodes). */
    SafeInt: { Input: number; Output: number | bigint };
  };
}>({
  plugins: [PrismaPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
  },
});
