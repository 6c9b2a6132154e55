/**
 * Official Stats NZ FPI monthly index levels (base June 2017 = 1000) into the table official_index:
 * all food (CPIM.SE901) and the five groups (CPIM.SE9011 … SE9015), from DATA_DIR's
 * `thecolab-ai--nz-cost-of-living/src/lib/fpi_monthly.csv` (columns series_ref, month, value; see
 * ../shared/data/README.md). They anchor the index's `anchored` series (src/domain/price-index.ts
 * `anchorSeries`).
 */
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { OfficialMonth } from '../../src/domain/price-index.js';
import { ExpectedError } from '../../src/errors.js';

/** The official monthly FPI file, relative to DATA_DIR. */
export const OFFICIAL_FPI_FILE = path.join('thecolab-ai--nz-cost-of-living', 'src', 'lib', 'fpi_monthly.csv');

/** A malformed official file (names the line). */
export class OfficialIndexError extends ExpectedError {}

/**
 * Reads the official monthly file. Returns null when the file does not exist.
 * @throws OfficialIndexError on a malformed line (wrong header, month or value).
 */
export function readOfficialIndex(dataDir: string): { seriesRef: string; month: string; value: number }[] | null {
  const file = path.join(dataDir, OFFICIAL_FPI_FILE);
  if (!fs.existsSync(file)) return null;
  const lines = fs.readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  if (lines[0]?.trim() !== 'series_ref,month,value') throw new OfficialIndexError(`${file}: line 1: expected the header series_ref,month,value`);
  return lines.slice(1).map((line, i) => {
    const [seriesRef, month, value, ...rest] = line.split(',');
    const v = Number(value);
    if (rest.length > 0 || !/^CPIM\.SE9\d+$/.test(seriesRef ?? '') || !/^\d{4}-(0[1-9]|1[0-2])$/.test(month ?? '') || !(v > 0)) {
      throw new OfficialIndexError(`${file}: line ${i + 2}: expected series_ref,YYYY-MM,positive value: "${line}"`);
    }
    return { seriesRef, month, value: v };
  });
}

/**
 * Upserts the official months from `dataDir` (nothing when the file is absent). Returns the rows
 * written or updated.
 */
export async function importOfficialIndex(db: pg.Pool | pg.PoolClient, dataDir: string): Promise<number> {
  const rows = readOfficialIndex(dataDir);
  if (!rows || rows.length === 0) return 0;
  const r = await db.query(
    `INSERT INTO official_index (series_ref, month, value)
     SELECT * FROM unnest($1::text[], $2::text[], $3::float8[])
     ON CONFLICT (series_ref, month) DO UPDATE SET value = EXCLUDED.value WHERE official_index.value IS DISTINCT FROM EXCLUDED.value`,
    [rows.map((r) => r.seriesRef), rows.map((r) => r.month), rows.map((r) => r.value)],
  );
  return r.rowCount ?? 0;
}

/** The official months of one series, oldest first. */
export async function officialMonths(db: pg.Pool | pg.PoolClient, seriesRef: string): Promise<OfficialMonth[]> {
  const r = await db.query<{ month: string; value: number }>(`SELECT month, value FROM official_index WHERE series_ref = $1 ORDER BY month`, [seriesRef]);
  return r.rows;
}
