/**
 * Parquet through DuckDB (`@duckdb/node-api`, in process): an export table's gzipped CSV
 * (workers/export/export.ts) becomes Zstd Parquet with the catalogue's exact column types
 * (workers/export/columns.ts DUCKDB_TYPE). DuckDB streams the CSV, so memory stays bounded by its
 * `memory_limit` (spilling to `temp_directory`) whatever the file size.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { DUCKDB_TYPE, type ExportTable } from './columns.js';

/** Resource bounds of the in-process DuckDB. */
export interface DuckDbLimits {
  /** DuckDB `memory_limit`, e.g. `'1GB'` (default `'1GB'`). */
  memoryLimit?: string;
  /** Worker threads (default 2). */
  threads?: number;
  /** Folder DuckDB may spill to (it creates it when needed). */
  tempDirectory: string;
}

/** An open in-memory DuckDB with one connection; call `close()` when done. */
export interface DuckDb {
  connection: DuckDBConnection;
  close(): void;
}

/** A SQL string literal. */
export const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Opens an in-memory DuckDB bounded by `limits`. Row order is preserved (the export's rows are
 * ordered deterministically, and Parquet keeps that order).
 * @throws when DuckDB cannot start.
 */
export async function openDuckDb(limits: DuckDbLimits): Promise<DuckDb> {
  const instance = await DuckDBInstance.create(':memory:', {
    memory_limit: limits.memoryLimit ?? '1GB',
    threads: String(limits.threads ?? 2),
    temp_directory: limits.tempDirectory,
    preserve_insertion_order: 'true',
    enable_external_access: 'true',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'true',
  });
  const connection = await instance.connect();
  return {
    connection,
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/**
 * The `read_csv(...)` call reading an export CSV (gzipped, RFC 4180, header row, empty unquoted
 * field = null, `""` = empty string) with the table's explicit column types; `text[]` columns are
 * read as VARCHAR (their JSON text) and parsed by {@link typedSelect}.
 */
export function readCsvCall(table: ExportTable, csvPath: string): string {
  const columns = table.columns.map((c) => `${sqlString(c.name)}: ${sqlString(c.type === 'text[]' ? 'VARCHAR' : DUCKDB_TYPE[c.type])}`);
  return (
    `read_csv(${sqlString(csvPath)}, header = true, auto_detect = false, columns = {${columns.join(', ')}}, ` +
    `delim = ',', quote = '"', escape = '"', allow_quoted_nulls = false, dateformat = '%Y-%m-%d', ` +
    `compression = 'gzip', strict_mode = true)`
  );
}

/** `SELECT` of every column of `table` from `fromSql`, cast to its DuckDB type (`text[]` from JSON). */
export function typedSelect(table: ExportTable, fromSql: string): string {
  const cols = table.columns.map((c) =>
    c.type === 'text[]'
      ? `CAST(from_json(${ident(c.name)}, '["VARCHAR"]') AS VARCHAR[]) AS ${ident(c.name)}`
      : `CAST(${ident(c.name)} AS ${DUCKDB_TYPE[c.type]}) AS ${ident(c.name)}`,
  );
  return `SELECT ${cols.join(', ')} FROM ${fromSql}`;
}

/**
 * Converts the export CSV `csvPath` of `table` to Zstd Parquet at `parquetPath`.
 * @returns the row count of the written Parquet file (read back from its metadata).
 * @throws when a CSV value does not parse as its column's type, or DuckDB fails.
 */
export async function csvToParquet(db: DuckDb, table: ExportTable, csvPath: string, parquetPath: string): Promise<number> {
  await db.connection.run(
    `COPY (${typedSelect(table, readCsvCall(table, csvPath))}) TO ${sqlString(parquetPath)} (FORMAT parquet, COMPRESSION zstd)`,
  );
  return parquetRows(db, parquetPath);
}

/** Rows of the Parquet file at `file` (from its metadata). @throws when it is not a Parquet file. */
export async function parquetRows(db: DuckDb, file: string): Promise<number> {
  const r = await db.connection.runAndReadAll(`SELECT count(*) AS n FROM read_parquet(${sqlString(file)})`);
  return Number(r.getRowObjectsJS()[0].n);
}

/** Column names and DuckDB types of the Parquet file at `file`, in file order. */
export async function parquetColumns(db: DuckDb, file: string): Promise<{ name: string; type: string }[]> {
  const r = await db.connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(file)})`);
  return r.getRowObjectsJS().map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
}
