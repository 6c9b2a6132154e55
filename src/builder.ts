/**
 * Pothos schema builder: configuration only (plugins, context and scalar types). Types and root
 * fields live in src/graph/, one file per type; src/graph/index.ts builds the schema.
 *
 * Relay connections (issue 20): `first`/`after` only (forward paging; `last`/`before` are not
 * offered), cursors are opaque strings, edges and nodes never null. No global ids, so no `node` or
 * `nodes` root fields: every type keeps its database id.
 */
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import type PrismaTypes from './generated/pothos-prisma-types.js';
import { getDatamodel } from './generated/pothos-prisma-types.js';
import type { Context } from './context.js';

/** The builder every file in src/graph/ registers its types with. */
export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Scalars: {
    /** New Zealand calendar day, `YYYY-MM-DD`. */
    Day: { Input: string; Output: string | Date };
    /** Instant, RFC 3339 in UTC. */
    DateTime: { Input: Date; Output: string | Date };
    /** Integer up to 2^53 (barcodes). */
    SafeInt: { Input: number; Output: number | bigint };
  };
}>({
  plugins: [RelayPlugin, PrismaPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    edgeCursorType: 'String',
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    // Forward paging only: dashboards page on, and `last` over a keyset would need reversed orders.
    beforeArgOptions: { description: 'Not supported: page forward with first and after.' },
    lastArgOptions: { description: 'Not supported: page forward with first and after.' },
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
  },
});
