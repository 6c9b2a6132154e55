/**
 * The file side of importing a bulk export (./import.ts): locating the export (a local folder, or a
 * manifest URL whose files are downloaded into a temporary folder), reading and checking its
 * manifest, and verifying every listed file's size and SHA-256 before anything is written to the
 * database. Files are streamed (hashing, downloading, counting CSV rows): memory stays flat at any
 * export size.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { EXPORT_TABLES, type ExportTable } from './columns.js';
import { ExportManifest, MANIFEST_FILE } from '../../src/services/exports.js';
import type { Progress } from '../progress.js';
import { ExpectedError } from '../../src/errors.js';

/** The licence every export carries (api-spec "ExportManifest"). */
export const EXPORT_LICENCE = 'CC BY 4.0';

/**
 * The export cannot be imported: a missing, truncated or altered file, a malformed manifest or CSV,
 * an inconsistent export, or a database that is not empty. Nothing was written to the database
 * when it is thrown. `file` names the export file at fault, when there is one.
 */
export class ExportImportError extends ExpectedError {
  constructor(
    message: string,
    readonly file: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ExportImportError';
  }
}

/** A located export whose files are all on the local disk. */
export interface LocatedExport {
  /** The folder holding manifest.json and the data files (symlinks such as `latest` resolved). */
  dir: string;
  manifest: ExportManifest;
  /** Removes the temporary download folder of a URL source (a no-op for a local folder). */
  cleanup(): Promise<void>;
}

/** The `.csv.gz` file name of an export table. */
export const csvName = (table: ExportTable['name']) => `${table}.csv.gz`;

/** True when `source` is an http(s) URL (a manifest URL) rather than a local path. */
export function isUrlSource(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/**
 * Parses and checks a manifest's text: JSON, licence `CC BY 4.0`, the contract's shape, plain file
 * names listed once, and the gzipped CSV of every export table present.
 * @throws ExportImportError naming manifest.json.
 */
export function parseManifest(text: string): ExportManifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ExportImportError(`${MANIFEST_FILE} is not valid JSON: ${(e as Error).message}`, MANIFEST_FILE, { cause: e });
  }
  const licence = (json as { licence?: unknown } | null)?.licence;
  if (licence !== EXPORT_LICENCE) {
    throw new ExportImportError(`${MANIFEST_FILE}: licence is ${JSON.stringify(licence)}, expected "${EXPORT_LICENCE}"`, MANIFEST_FILE);
  }
  const parsed = ExportManifest.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new ExportImportError(`${MANIFEST_FILE} does not match the ExportManifest contract: ${issues}`, MANIFEST_FILE);
  }
  const manifest = parsed.data;
  const seen = new Set<string>();
  for (const f of manifest.files) {
    if (f.name !== path.basename(f.name) || f.name === '.' || f.name === '..' || f.name.includes('\\')) {
      throw new ExportImportError(`${MANIFEST_FILE} lists "${f.name}", which is not a plain file name`, MANIFEST_FILE);
    }
    if (seen.has(f.name)) throw new ExportImportError(`${MANIFEST_FILE} lists ${f.name} twice`, MANIFEST_FILE);
    seen.add(f.name);
  }
  const missing = EXPORT_TABLES.map((t) => csvName(t.name)).filter((n) => !seen.has(n));
  if (missing.length > 0) {
    throw new ExportImportError(`${MANIFEST_FILE} does not list ${missing.join(', ')} (every table's gzipped CSV is needed)`, MANIFEST_FILE);
  }
  return manifest;
}

/**
 * Locates the export at `source`: a local folder holding manifest.json (an export folder or its
 * `latest` symlink, resolved once so a new export published meanwhile cannot mix files), a path to
 * a manifest.json, or an http(s) URL of a manifest.json, whose files are then downloaded (streamed)
 * from URLs relative to it into a fresh temporary folder.
 * @throws ExportImportError when the manifest is missing, unreadable or malformed, or a download fails.
 */
export async function locateExport(source: string, progress?: (title: string, total: number) => Progress): Promise<LocatedExport> {
  if (isUrlSource(source)) return downloadExport(source, progress);
  let dir = path.resolve(source);
  let stat: fs.Stats;
  try {
    stat = await fsp.stat(dir);
  } catch (e) {
    throw new ExportImportError(`export source ${source} does not exist`, null, { cause: e });
  }
  if (stat.isFile()) dir = path.dirname(dir);
  dir = await fsp.realpath(dir);
  let text: string;
  try {
    text = await fsp.readFile(path.join(dir, MANIFEST_FILE), 'utf8');
  } catch (e) {
    throw new ExportImportError(`no ${MANIFEST_FILE} in ${dir}`, MANIFEST_FILE, { cause: e });
  }
  return { dir, manifest: parseManifest(text), cleanup: async () => {} };
}

async function fetchOrFail(url: URL, name: string): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: 'follow' });
  } catch (e) {
    throw new ExportImportError(`cannot download ${url.href}: ${(e as Error).message}`, name, { cause: e });
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => {});
    throw new ExportImportError(`cannot download ${url.href}: HTTP ${res.status}`, name);
  }
  return res;
}

async function downloadExport(source: string, progress?: (title: string, total: number) => Progress): Promise<LocatedExport> {
  const manifestUrl = new URL(source);
  const res = await fetchOrFail(manifestUrl, MANIFEST_FILE);
  const manifest = parseManifest(await res.text());
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'nzgp-import-'));
  const cleanup = () => fsp.rm(dir, { recursive: true, force: true });
  try {
    await fsp.writeFile(path.join(dir, MANIFEST_FILE), JSON.stringify(manifest));
    const bar = progress?.('import: download', manifest.files.reduce((n, f) => n + f.bytes, 0));
    for (const f of manifest.files) {
      const url = new URL(f.name, manifestUrl);
      const body = (await fetchOrFail(url, f.name)).body!;
      try {
        await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream), byteCounter((n) => bar?.increment(n)), fs.createWriteStream(path.join(dir, f.name)));
      } catch (e) {
        throw new ExportImportError(`download of ${url.href} failed: ${(e as Error).message}`, f.name, { cause: e });
      }
    }
    bar?.stop();
    return { dir, manifest, cleanup };
  } catch (e) {
    await cleanup().catch(() => {});
    throw e;
  }
}

/** A pass-through stream reporting the bytes that flow through it. */
export function byteCounter(onBytes: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
      onBytes(chunk.length);
      cb(null, chunk);
    },
  });
}

/**
 * Verifies every file the manifest lists: present in `dir`, of the listed byte size, with the
 * listed SHA-256 (streamed). Reads nothing else and writes nothing.
 * @throws ExportImportError naming the first file that is missing, of another size or altered.
 */
export async function verifyFiles(dir: string, manifest: ExportManifest, bar?: Progress): Promise<void> {
  for (const f of manifest.files) {
    const file = path.join(dir, f.name);
    let stat: fs.Stats;
    try {
      stat = await fsp.stat(file);
    } catch {
      throw new ExportImportError(`${f.name} is listed in the manifest but missing from the export`, f.name);
    }
    if (!stat.isFile()) throw new ExportImportError(`${f.name} is not a file`, f.name);
    if (stat.size !== f.bytes) {
      throw new ExportImportError(`${f.name} has ${stat.size} bytes, the manifest says ${f.bytes} (truncated or altered)`, f.name);
    }
    const hash = crypto.createHash('sha256');
    await pipeline(fs.createReadStream(file), byteCounter((n) => bar?.increment(n)), hash);
    const sha256 = hash.digest('hex');
    if (sha256 !== f.sha256) {
      throw new ExportImportError(`${f.name}: sha256 ${sha256} differs from the manifest's ${f.sha256} (altered or corrupt)`, f.name);
    }
  }
  bar?.stop();
}

/** The records of a gzipped CSV file, streamed (each record an array of fields). */
function csvRecords(file: string, options: { toLine?: number } = {}) {
  const parser = parse({ bom: true, relax_column_count: false, ...(options.toLine ? { to_line: options.toLine } : {}) });
  const input = fs.createReadStream(file);
  const gunzip = zlib.createGunzip();
  // Errors of the file and gzip streams reach the parser's consumer.
  input.on('error', (e) => parser.destroy(e));
  gunzip.on('error', (e) => parser.destroy(e));
  input.pipe(gunzip).pipe(parser);
  return { parser, close: () => { input.destroy(); gunzip.destroy(); } };
}

/**
 * The header row of the gzipped CSV `name` in `dir`, checked against the catalogue's columns of
 * `table` (the same set of names; their order may differ).
 * @returns the column names in file order.
 * @throws ExportImportError when the file does not gunzip or parse, or its header differs.
 */
export async function readCsvHeader(dir: string, table: ExportTable): Promise<string[]> {
  const name = csvName(table.name);
  const { parser, close } = csvRecords(path.join(dir, name), { toLine: 1 });
  let header: string[] | null = null;
  try {
    for await (const rec of parser) {
      header ??= rec as string[];
    }
  } catch (e) {
    throw new ExportImportError(`${name} cannot be read as gzipped CSV: ${(e as Error).message}`, name, { cause: e });
  } finally {
    close();
  }
  if (!header) throw new ExportImportError(`${name} has no header row`, name);
  const expected = table.columns.map((c) => c.name);
  const missing = expected.filter((c) => !header!.includes(c));
  const extra = header.filter((c) => !expected.includes(c));
  if (missing.length || extra.length || new Set(header).size !== header.length) {
    throw new ExportImportError(
      `${name}: header does not match the column catalogue (missing: ${missing.join(', ') || '-'}; unknown: ${extra.join(', ') || '-'})`,
      name,
    );
  }
  return header;
}

/**
 * Data rows of the gzipped CSV of `table` in `dir` (the header not counted), parsed as RFC 4180
 * so quoted newlines are not rows. @throws ExportImportError when the file does not parse.
 */
export async function countCsvRows(dir: string, table: ExportTable): Promise<number> {
  const name = csvName(table.name);
  const { parser, close } = csvRecords(path.join(dir, name));
  let n = 0;
  try {
    for await (const _rec of parser) n++;
  } catch (e) {
    throw new ExportImportError(`${name} cannot be read as gzipped CSV: ${(e as Error).message}`, name, { cause: e });
  } finally {
    close();
  }
  return Math.max(0, n - 1);
}
