/**
 * Drift check between prisma/schema.prisma and the database the SQL migrations build, without
 * Prisma's schema engine (it cannot be downloaded here, so `prisma migrate diff` cannot run).
 *
 * The schema is parsed by Prisma itself: {@link loadDatamodel} runs `prisma generate` (whose schema
 * parser is WebAssembly bundled in the `prisma` package and works offline) on a copy of the schema
 * whose generators are replaced by a tiny generator that writes the DMMF datamodel Prisma hands it.
 * The database is read by {@link introspect} from information_schema and pg_catalog, and
 * {@link compareSchema} reports every difference as one line of text: tables, columns (type,
 * nullability, default), primary keys, unique constraints and indexes (names, with `map:` or
 * Prisma's default names), and foreign keys (columns, target and referential actions, with Prisma's
 * defaults when the schema names none). What Prisma cannot model must be listed in
 * {@link DRIFT_ALLOW} with the reason. CHECK constraints, functions and triggers are not compared:
 * Prisma does not model them either.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { ROOT_DIR } from '../env.js';

/** The repository's Prisma schema. */
export const SCHEMA_PATH = path.join(ROOT_DIR, 'prisma', 'schema.prisma');

/** One field of a DMMF model (the part the comparison reads). */
export interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  hasDefaultValue: boolean;
  default?: unknown;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

/** One DMMF model. */
export interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}

/** One DMMF index: `id`, `unique`, `normal` or `fulltext`, named by `map:` (dbName) or by default. */
export interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string | null;
  algorithm?: string;
  fields: { name: string }[];
}

/** The DMMF datamodel Prisma's parser produces (the part the comparison reads). */
export interface Datamodel {
  models: DmmfModel[];
  enums: { name: string; dbName?: string | null }[];
  indexes: DmmfIndex[];
}

/** A column as the database has it. */
export interface DbColumn {
  table: string;
  name: string;
  /** `format_type` spelling, e.g. `integer`, `text[]`, `timestamp with time zone`. */
  type: string;
  nullable: boolean;
  default: string | null;
  generated: boolean;
}

/** An index (including those behind primary key and unique constraints). */
export interface DbIndex {
  table: string;
  name: string;
  columns: string[];
  unique: boolean;
  primary: boolean;
  method: string;
  partial: boolean;
  expression: boolean;
}

/** A foreign key constraint. */
export interface DbForeignKey {
  table: string;
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: string;
  onUpdate: string;
}

/** What {@link introspect} reads from the database's current schema. */
export interface DbSchema {
  tables: string[];
  columns: DbColumn[];
  indexes: DbIndex[];
  foreignKeys: DbForeignKey[];
}

/** Database objects the schema deliberately does not declare, each with the reason. */
export interface DriftAllowList {
  /** Table names. */
  tables: Record<string, string>;
  /** `table.column`. */
  columns: Record<string, string>;
  /** Index names (also those of unique constraints). */
  indexes: Record<string, string>;
}

/**
 * What the migrations create and schema.prisma cannot (or need not) declare. Every entry must exist
 * in the migrated database, so the list cannot silently outlive what it excuses.
 */
export const DRIFT_ALLOW: DriftAllowList = {
  tables: {
    // Prisma Migrate's own bookkeeping (written by src/db/migrate.ts the way `migrate deploy` does).
    _prisma_migrations: "Prisma's migrations table",
  },
  columns: {
    // Generated (GENERATED ALWAYS AS ... STORED) search columns: Prisma cannot model generated
    // columns, and the client must never write them (migration 20261121000100_search).
    'listing.search_name': 'generated search text (search_normalize of brand and name)',
    'listing.search_doc': 'generated tsvector for full-text search',
    // Migration 20261127000000_suggest_indexes.
    'product.search_name': 'generated search text (search_normalize of brand and name)',
    // Migration 20261129000300_shelves: Prisma has no tsvector type.
    'shelf_product.search_doc': 'tsvector of the shelf product\'s words (browse_shelf q)',
  },
  indexes: {
    // Indexes over generated columns, expressions or with a WHERE clause: Prisma's index syntax can
    // name neither the generated columns nor expressions, and has no partial indexes.
    listing_search_doc_idx: 'GIN over the generated search_doc',
    listing_search_name_trgm_idx: 'trigram GIN over the generated search_name',
    listing_brand_idx: 'expression search_normalize(brand), partial',
    listing_brand_trgm_idx: 'trigram GIN over search_normalize(brand), partial',
    listing_category_trgm_idx: 'trigram GIN over search_category_text(category_path), partial',
    product_search_name_trgm_idx: 'trigram GIN over the generated search_name',
    // At most one open span per store and listing / per listing: partial unique indexes.
    store_price_span_open_idx: 'unique, partial (last_day IS NULL)',
    // Migration 20261201000100_scale: the open store spans in listing order.
    store_price_span_open_listing_idx: 'partial (last_day IS NULL)',
    national_price_span_open_idx: 'unique, partial (last_day IS NULL)',
    // At most one open size span per listing (migration 20261210000000_listing_size_span).
    listing_size_span_open_idx: 'unique, partial (last_day IS NULL)',
    // A window's size changes (spans that follow another), for list_shrinkflation.
    listing_size_span_change_idx: 'partial (prev_size_text IS NOT NULL)',
    // At most one basket match in force per listing (migration 20261128000000_index).
    basket_match_open_idx: 'unique, partial (valid_to IS NULL)',
    // One collection per retailer, store (NULL for national) and day: unique over COALESCE(store_id, 0).
    collection_scope_day_idx: 'unique over an expression',
  },
};

// The generator that writes the DMMF datamodel Prisma passes it (Prisma's generator JSON-RPC:
// requests on stdin, answers on stderr, one JSON object a line).
const DUMP_GENERATOR = `import fs from 'node:fs';
import readline from 'node:readline';
const reply = (id, result) => process.stderr.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'getManifest') reply(msg.id, { manifest: { prettyName: 'DMMF dump', requiresEngines: [] } });
  else if (msg.method === 'generate') {
    fs.writeFileSync(msg.params.generator.output.value, JSON.stringify(msg.params.dmmf.datamodel));
    reply(msg.id, null);
  }
});
`;

/**
 * Parses Prisma schema text with Prisma's own parser (see the module comment) and returns its DMMF
 * datamodel. Takes about a second (one `prisma generate` run).
 * @throws Error with Prisma's message when the schema does not validate.
 */
export async function loadDatamodel(schemaText: string): Promise<Datamodel> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dmmf-'));
  try {
    const generator = path.join(dir, 'dump-dmmf.mjs');
    const out = path.join(dir, 'datamodel.json');
    fs.writeFileSync(generator, DUMP_GENERATOR);
    const text = schemaText.replace(/^generator\s+\w+\s*\{[\s\S]*?^\}/gm, '') +
      `\ngenerator dmmf {\n  provider = ${JSON.stringify(`node ${generator}`)}\n  output   = ${JSON.stringify(out)}\n}\n`;
    const schemaFile = path.join(dir, 'schema.prisma');
    fs.writeFileSync(schemaFile, text);
    const cli = path.join(ROOT_DIR, 'node_modules', 'prisma', 'build', 'index.js');
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [cli, 'generate', '--schema', schemaFile], {
        cwd: dir,
        env: {
          ...process.env,
          // `generate` needs no engine, but the CLI insists that one exists (see DESIGN.md "Prisma here").
          PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true',
          CHECKPOINT_DISABLE: '1',
          PRISMA_HIDE_UPDATE_MESSAGE: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c, output }));
    });
    if (code !== 0 || !fs.existsSync(out)) throw new Error(`prisma generate could not parse the schema:\n${output}`);
    return JSON.parse(fs.readFileSync(out, 'utf8')) as Datamodel;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Reads tables, columns, indexes and foreign keys of the connection's current schema. */
export async function introspect(db: pg.Pool | pg.PoolClient): Promise<DbSchema> {
  const tables = (await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`,
  )).rows.map((r) => r.name);
  const columns = (await db.query<DbColumn>(
    `SELECT c.table_name AS "table", c.column_name AS name, format_type(a.atttypid, a.atttypmod) AS type,
            c.is_nullable = 'YES' AS nullable, c.column_default AS "default", c.is_generated = 'ALWAYS' AS generated
     FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
     JOIN pg_attribute a ON a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass AND a.attname = c.column_name
     WHERE c.table_schema = current_schema() ORDER BY c.table_name, c.ordinal_position`,
  )).rows;
  const indexes = (await db.query<DbIndex>(
    `SELECT t.relname AS "table", i.relname AS name, x.indisunique AS unique, x.indisprimary AS primary, am.amname AS method,
            x.indpred IS NOT NULL AS partial, x.indexprs IS NOT NULL AS expression,
            ARRAY(SELECT a.attname::text FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(n, o)
                  JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.n ORDER BY k.o) AS columns
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
     JOIN pg_am am ON am.oid = i.relam JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = current_schema() AND t.relkind IN ('r', 'p') ORDER BY 1, 2`,
  )).rows;
  const foreignKeys = (await db.query<DbForeignKey>(
    `SELECT t.relname AS "table", c.conname AS name, r.relname AS "refTable",
            ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, o)
                  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o) AS columns,
            ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, o)
                  JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o) AS "refColumns",
            c.confdeltype::text AS "onDelete", c.confupdtype::text AS "onUpdate"
     FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE c.contype = 'f' AND n.nspname = current_schema() ORDER BY 1, 2`,
  )).rows;
  const action: Record<string, string> = { a: 'NoAction', r: 'Restrict', c: 'Cascade', n: 'SetNull', d: 'SetDefault' };
  for (const fk of foreignKeys) {
    fk.onDelete = action[fk.onDelete] ?? fk.onDelete;
    fk.onUpdate = action[fk.onUpdate] ?? fk.onUpdate;
  }
  return { tables, columns, indexes, foreignKeys };
}

const SCALAR_TYPES: Record<string, string> = {
  Int: 'integer',
  BigInt: 'bigint',
  String: 'text',
  Float: 'double precision',
  Boolean: 'boolean',
  DateTime: 'timestamp(3) without time zone',
  Json: 'jsonb',
  Bytes: 'bytea',
  Decimal: 'numeric(65,30)',
};

/** `format_type` spelling of a field's column type (Prisma's PostgreSQL mapping), or null if unknown. */
function expectedType(field: DmmfField, enums: Datamodel['enums']): string | null {
  let base: string | null;
  if (field.kind === 'enum') {
    const name = enums.find((e) => e.name === field.type)?.dbName ?? field.type;
    base = /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name}"`;
  } else if (field.nativeType) {
    const [native, args] = field.nativeType;
    const a = args.length ? `(${args.join(',')})` : '';
    const time = (kind: string, tz: boolean) => `${kind}${a} ${tz ? 'with' : 'without'} time zone`;
    const natives: Record<string, string> = {
      SmallInt: 'smallint', Integer: 'integer', BigInt: 'bigint', Text: 'text', VarChar: `character varying${a}`,
      Char: `character${a}`, Uuid: 'uuid', DoublePrecision: 'double precision', Real: 'real', Date: 'date',
      Timestamptz: time('timestamp', true), Timestamp: time('timestamp', false), Timetz: time('time', true),
      Time: time('time', false), JsonB: 'jsonb', Json: 'json', Boolean: 'boolean', Decimal: `numeric${a}`,
      Money: 'money', Inet: 'inet', Citext: 'citext', Xml: 'xml', ByteA: 'bytea', Oid: 'oid',
    };
    base = natives[native] ?? null;
  } else {
    base = SCALAR_TYPES[field.type] ?? null;
  }
  return base === null ? null : field.isList ? `${base}[]` : base;
}

const unquote = (s: string) => s.slice(1, -1).replaceAll("''", "'");

/** Whether a column default as PostgreSQL prints it is what the field's `@default` renders to. */
function defaultMatches(field: DmmfField, actual: string | null): boolean {
  const d = field.default;
  // Defaults the client computes (uuid(), cuid(), ...) leave no database default.
  const clientSide = typeof d === 'object' && d !== null && !Array.isArray(d) &&
    ['uuid', 'cuid', 'nanoid', 'ulid'].includes((d as { name: string }).name);
  if (!field.hasDefaultValue || clientSide) return actual === null;
  if (actual === null) return false;
  const cast = /^(.*?)(::[\w ."[\]()]+)?$/s.exec(actual)![1];
  if (Array.isArray(d)) {
    if (d.length === 0) return /^'\{\}'::/.test(actual) || /^ARRAY\[\]::/.test(actual);
    const m = /^'\{(.*)\}'::/.exec(actual);
    return m !== null && m[1].split(',').map((x) => x.replace(/^"|"$/g, '')).join('\u0000') === d.map(String).join('\u0000');
  }
  if (typeof d === 'object' && d !== null) {
    const fn = d as { name: string; args: unknown[] };
    if (fn.name === 'autoincrement') return /^nextval\('.+'::regclass\)$/.test(actual);
    if (fn.name === 'now') return actual === 'now()' || actual === 'CURRENT_TIMESTAMP';
    if (fn.name === 'dbgenerated') return actual.replace(/\s+/g, ' ') === String(fn.args[0] ?? '').replace(/\s+/g, ' ');
    return false;
  }
  if (typeof d === 'boolean') return cast === String(d);
  if (typeof d === 'number') return cast.replace(/^'|'$/g, '').replace(/^\((.*)\)$/, '$1') === String(d);
  if (typeof d === 'string') return cast.startsWith("'") && unquote(cast) === d;
  return false;
}

/**
 * Compares a parsed schema with an introspected database.
 * @returns one line per difference, sorted (empty when they agree).
 */
export function compareSchema(dm: Datamodel, db: DbSchema, allow: DriftAllowList = DRIFT_ALLOW): string[] {
  const out: string[] = [];
  const tableOf = new Map(dm.models.map((m) => [m.name, m.dbName ?? m.name]));
  const colOf = (model: DmmfModel, field: string) => {
    const f = model.fields.find((x) => x.name === field);
    return f?.dbName ?? field;
  };
  const dbTables = new Set(db.tables);
  const expectedIndexes = new Set<string>();
  const expectedFks = new Set<string>();

  for (const model of dm.models) {
    const table = tableOf.get(model.name)!;
    if (!dbTables.has(table)) {
      out.push(`table ${table} (model ${model.name}) is missing from the database`);
      continue;
    }
    const cols = new Map(db.columns.filter((c) => c.table === table).map((c) => [c.name, c]));
    const declared = new Set<string>();
    for (const field of model.fields) {
      if (field.kind === 'object') continue;
      const name = field.dbName ?? field.name;
      declared.add(name);
      const where = `${table}.${name} (${model.name}.${field.name})`;
      const col = cols.get(name);
      if (!col) {
        out.push(`column ${where} is missing from the database`);
        continue;
      }
      const type = expectedType(field, dm.enums);
      if (type === null) out.push(`column ${where}: the comparison does not know type ${field.type} ${JSON.stringify(field.nativeType)}`);
      else if (type !== col.type) out.push(`column ${where}: type ${col.type} in the database, ${type} in the schema`);
      // Prisma models every scalar list as a list whatever its NULL constraint (its SQL has none).
      if (!field.isList && col.nullable === field.isRequired) {
        out.push(`column ${where}: ${col.nullable ? 'nullable' : 'NOT NULL'} in the database, ${field.isRequired ? 'required' : 'optional'} in the schema`);
      }
      if (col.generated) out.push(`column ${where}: generated in the database, which Prisma cannot model`);
      else if (!defaultMatches(field, col.default)) {
        out.push(`column ${where}: default ${col.default ?? 'none'} in the database, ${field.hasDefaultValue ? JSON.stringify(field.default) : 'none'} in the schema`);
      }
    }
    for (const name of cols.keys()) {
      if (!declared.has(name) && !(`${table}.${name}` in allow.columns)) {
        out.push(`column ${table}.${name} is in the database but not in model ${model.name} (declare it or allow-list it)`);
      }
    }

    // Foreign keys, Prisma's referential-action defaults when none is given: onDelete Restrict for a
    // required relation, SetNull for an optional one; onUpdate Cascade.
    for (const field of model.fields) {
      if (field.kind !== 'object' || !field.relationFromFields?.length) continue;
      const target = dm.models.find((m) => m.name === field.type)!;
      const columns = field.relationFromFields.map((f) => colOf(model, f));
      const refTable = tableOf.get(target.name)!;
      const refColumns = (field.relationToFields ?? []).map((f) => colOf(target, f));
      const onDelete = field.relationOnDelete ?? (field.isRequired ? 'Restrict' : 'SetNull');
      const onUpdate = field.relationOnUpdate ?? 'Cascade';
      const where = `foreign key ${table}(${columns.join(', ')}) → ${refTable}(${refColumns.join(', ')}) (${model.name}.${field.name})`;
      const fk = db.foreignKeys.find((k) => k.table === table && k.columns.join() === columns.join());
      if (!fk) {
        out.push(`${where} is missing from the database`);
        continue;
      }
      expectedFks.add(fk.name);
      if (fk.refTable !== refTable || fk.refColumns.join() !== refColumns.join()) {
        out.push(`${where}: references ${fk.refTable}(${fk.refColumns.join(', ')}) in the database`);
      }
      if (fk.onDelete !== onDelete || fk.onUpdate !== onUpdate) {
        out.push(`${where}: ON DELETE ${fk.onDelete} ON UPDATE ${fk.onUpdate} in the database, onDelete: ${onDelete}, onUpdate: ${onUpdate} in the schema`);
      }
    }
  }

  // Primary keys, unique constraints and indexes, by name (`map:` or Prisma's default name).
  for (const ix of dm.indexes) {
    const model = dm.models.find((m) => m.name === ix.model)!;
    const table = tableOf.get(model.name)!;
    const columns = ix.fields.map((f) => colOf(model, f.name));
    const suffix = { id: 'pkey', unique: 'key', normal: 'idx', fulltext: 'idx' }[ix.type];
    const name = ix.dbName ?? (ix.type === 'id' ? `${table}_pkey` : `${table}_${columns.join('_')}_${suffix}`);
    expectedIndexes.add(name);
    const what = `${ix.type === 'id' ? 'primary key' : ix.type === 'unique' ? 'unique constraint' : 'index'} ${name} on ${table}(${columns.join(', ')})`;
    const found = db.indexes.find((i) => i.name === name);
    if (!found) {
      const same = db.indexes.find((i) => i.table === table && i.columns.join() === columns.join() && !i.partial && !i.expression);
      out.push(`${what} is missing from the database${same ? ` (it has ${same.name} on those columns: name it with map:)` : ''}`);
      continue;
    }
    if (found.table !== table || found.columns.join() !== columns.join() || found.expression) {
      out.push(`${what}: on ${found.table}(${found.columns.join(', ')})${found.expression ? ' with expressions' : ''} in the database`);
    }
    if (found.primary !== (ix.type === 'id') || found.unique !== (ix.type !== 'normal')) {
      out.push(`${what}: ${found.primary ? 'primary key' : found.unique ? 'unique' : 'non-unique'} in the database`);
    }
    if (found.partial) out.push(`${what}: partial in the database`);
    const method = (ix.algorithm ?? 'BTree').toLowerCase();
    if (found.method !== method) out.push(`${what}: ${found.method} in the database, ${method} in the schema`);
  }

  for (const t of db.tables) {
    if (!tableOf.size || ![...tableOf.values()].includes(t)) {
      if (!(t in allow.tables)) out.push(`table ${t} is in the database but not in the schema (declare it or allow-list it)`);
    }
  }
  const modelled = new Set(tableOf.values());
  for (const ix of db.indexes) {
    if (!modelled.has(ix.table) || expectedIndexes.has(ix.name) || ix.name in allow.indexes) continue;
    out.push(`index ${ix.name} on ${ix.table}(${ix.columns.join(', ')}) is in the database but not in the schema (declare it or allow-list it)`);
  }
  for (const fk of db.foreignKeys) {
    if (modelled.has(fk.table) && !expectedFks.has(fk.name)) {
      out.push(`foreign key ${fk.name} on ${fk.table}(${fk.columns.join(', ')}) is in the database but not in the schema`);
    }
  }
  // Allow-list entries must excuse something that exists.
  for (const t of Object.keys(allow.tables)) if (!db.tables.includes(t)) out.push(`allow-listed table ${t} does not exist`);
  for (const c of Object.keys(allow.columns)) {
    const [t, n] = c.split('.');
    if (!db.columns.some((x) => x.table === t && x.name === n)) out.push(`allow-listed column ${c} does not exist`);
  }
  for (const i of Object.keys(allow.indexes)) if (!db.indexes.some((x) => x.name === i)) out.push(`allow-listed index ${i} does not exist`);
  return out.sort();
}
