/**
 * COPY of generated rows into a table (text format), for workers that write many computed rows at
 * once (the index, the derived views): one place for the chunking and the cell encoding.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A COPY text-format cell: `\N` for null, `t`/`f` for booleans, else the value as text (no tabs or newlines expected). */
export function copyCell(v: number | string | boolean | null): string {
  if (v == null) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  return String(v);
}

/**
 * COPYs text rows (each a tab-separated line ending in `\n`) into `target` (`table (columns)`),
 * in chunks of about 64 KiB. Returns the rows copied.
 * @throws the database's error (the caller's transaction then rolls back).
 */
export async function copyRows(client: pg.PoolClient, target: string, rows: Iterable<string>): Promise<number> {
  let n = 0;
  function* chunks() {
    let buf = '';
    for (const r of rows) {
      buf += r;
      n++;
      if (buf.length > 1 << 16) {
        yield buf;
        buf = '';
      }
    }
    if (buf) yield buf;
  }
  await pipeline(Readable.from(chunks()), client.query(copyFrom(`COPY ${target} FROM STDIN`)));
  return n;
}
