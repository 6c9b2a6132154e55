/**
 * prisma/schema.prisma against the database the SQL migrations build (issue 14): `prisma migrate
 * diff` needs the schema engine, which cannot be downloaded here, so the schema is parsed by Prisma's
 * own parser (src/db/schema-drift.ts loadDatamodel) and compared with a migrated, empty database by
 * introspection. The second block shows the comparison catches deliberate mismatches.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import {
  compareSchema,
  DRIFT_ALLOW,
  introspect,
  loadDatamodel,
  SCHEMA_PATH,
  type Datamodel,
  type DbSchema,
} from '../../src/db/schema-drift.js';

let db: TestDatabase;
let live: DbSchema;
let text: string;
let datamodel: Datamodel;

beforeAll(async () => {
  db = await createTestDatabase('schema_drift');
  live = await introspect(db.pool);
  text = fs.readFileSync(SCHEMA_PATH, 'utf8');
  datamodel = await loadDatamodel(text);
});
afterAll(async () => {
  await db?.drop();
});

/** The schema text with `from` (which must occur exactly once) replaced by `to`. */
function edit(from: string, to: string): string {
  expect(text.split(from).length - 1, `"${from}" once in schema.prisma`).toBe(1);
  return text.replace(from, to);
}

async function diff(schemaText: string): Promise<string[]> {
  return compareSchema(await loadDatamodel(schemaText), live);
}

describe('schema.prisma and the migrations', () => {
  it('describe the same database', () => {
    expect(compareSchema(datamodel, live)).toEqual([]);
  });

  it('compares every model and column (the comparison is not vacuous)', () => {
    expect(datamodel.models.length).toBe(live.tables.length - Object.keys(DRIFT_ALLOW.tables).length);
    const tables = new Set(datamodel.models.map((m) => m.dbName ?? m.name));
    expect(live.tables.filter((t) => !tables.has(t))).toEqual(Object.keys(DRIFT_ALLOW.tables));
    const scalar = datamodel.models.flatMap((m) => m.fields.filter((f) => f.kind !== 'object'));
    const columns = live.columns.filter((c) => tables.has(c.table));
    expect(scalar.length + Object.keys(DRIFT_ALLOW.columns).length).toBe(columns.length);
    const relations = datamodel.models.flatMap((m) => m.fields.filter((f) => f.relationFromFields?.length));
    expect(live.foreignKeys.length).toBe(relations.length);
    expect(relations.length).toBeGreaterThan(0);
  });
});

describe('the comparison reports deliberate mismatches', () => {
  it('a column renamed in the schema', async () => {
    expect(await diff(edit('@map("first_seen")', '@map("first_seen_day")'))).toEqual([
      'column listing.first_seen is in the database but not in model Listing (declare it or allow-list it)',
      'column listing.first_seen_day (Listing.firstSeen) is missing from the database',
    ]);
  });

  it('a field made optional, a type, a precision and a default changed', async () => {
    let t = edit('  price         Int\n  promoPrice    Int?      @map("promo_price")\n  promoKind     Int?      @map("promo_kind") @db.SmallInt\n  multibuyQty   Int?      @map("multibuy_qty")\n  multibuyPrice Int?      @map("multibuy_price")\n\n  @@index([listingId, storeId',
      '  price         Int?\n  promoPrice    Int?      @map("promo_price")\n  promoKind     Int?      @map("promo_kind") @db.SmallInt\n  multibuyQty   Int?      @map("multibuy_qty")\n  multibuyPrice Int?      @map("multibuy_price")\n\n  @@index([listingId, storeId');
    t = t.replace('  gtin      BigInt?\n  image     String?\n  createdAt', '  gtin      Int?\n  image     String?\n  createdAt');
    t = t.replace('  active      Boolean   @default(true)', '  active      Boolean');
    t = t.replace('builtAt   DateTime  @map("built_at") @db.Timestamptz', 'builtAt   DateTime  @map("built_at") @db.Timestamptz(3)');
    expect(await diff(t)).toEqual([
      'column product.gtin (Product.gtin): type bigint in the database, integer in the schema',
      'column search_index_state.built_at (SearchIndexState.builtAt): type timestamp with time zone in the database, timestamp(3) with time zone in the schema',
      'column store.active (Store.active): default true in the database, none in the schema',
      'column store_price_span.price (StorePriceSpan.price): NOT NULL in the database, optional in the schema',
    ]);
  });

  it('an index named differently, a unique constraint dropped and a relation with Prisma\'s default actions', async () => {
    let t = edit('map: "listing_gtin_idx"', 'map: "listing_gtin_index"');
    t = t.replace('  slug            String    @unique\n', '  slug            String\n');
    t = t.replace('kind     Kind      @relation(fields: [kindId], references: [id], onDelete: NoAction, onUpdate: NoAction)', 'kind     Kind      @relation(fields: [kindId], references: [id])');
    expect(await diff(t)).toEqual([
      'foreign key generic(kind_id) → kind(id) (Generic.kind): ON DELETE NoAction ON UPDATE NoAction in the database, onDelete: Restrict, onUpdate: Cascade in the schema',
      'index listing_gtin_idx on listing(gtin) is in the database but not in the schema (declare it or allow-list it)',
      'index listing_gtin_index on listing(gtin) is missing from the database (it has listing_gtin_idx on those columns: name it with map:)',
      'index retailer_slug_key on retailer(slug) is in the database but not in the schema (declare it or allow-list it)',
    ]);
  });

  it('a model removed and a column no longer allow-listed', async () => {
    const start = text.indexOf('model ImportRun {');
    const t = text.slice(0, start) + text.slice(text.indexOf('}', start) + 1);
    const { 'listing.search_doc': _, ...columns } = DRIFT_ALLOW.columns;
    const allow = { ...DRIFT_ALLOW, columns: { ...columns, 'listing.no_such_column': 'stale' } };
    expect(compareSchema(await loadDatamodel(t), live, allow)).toEqual([
      'allow-listed column listing.no_such_column does not exist',
      'column listing.search_doc is in the database but not in model Listing (declare it or allow-list it)',
      'table import_run is in the database but not in the schema (declare it or allow-list it)',
    ]);
  });

  it('a schema Prisma rejects', async () => {
    await expect(loadDatamodel(edit('model Kind {', 'model Kind {\n  broken Nope'))).rejects.toThrow(/Nope/);
  });
});
