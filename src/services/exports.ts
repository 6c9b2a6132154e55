/**
 * The published nightly export (api-spec "Bulk data", ExportManifest): the manifest's schema and
 * reading the manifest of `<EXPORT_DIR>/latest`, which the export worker (workers/export) writes and
 * switches atomically.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/** Name of the symlink readers follow (`<EXPORT_DIR>/latest`). */
export const LATEST = 'latest';
/** Name of the manifest inside an export folder. */
export const MANIFEST_FILE = 'manifest.json';

/** One file of an export, as listed in the manifest. */
export const ExportFile = z.object({
  /** File name inside the export folder, e.g. `price_spans.parquet`. */
  name: z.string().min(1).describe('File name, e.g. price_spans.parquet'),
  /** Size in bytes, as written. */
  bytes: z.int().min(0).describe('Size in bytes'),
  /** Data rows in the file (the CSV header not counted). */
  rows: z.int().min(0).describe('Data rows'),
  /** Lowercase hex SHA-256 of the file's bytes. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/).describe('SHA-256 of the bytes, hex'),
});
/** One file of an export (see {@link ExportFile}). */
export type ExportFile = z.infer<typeof ExportFile>;

/**
 * The contract's ExportManifest (api-spec "ExportManifest"), its one home: the export worker
 * writes and its importer checks manifests with it, the graph serves it, and the facades' resource
 * schema is meant to wrap it. `day` is the latest data day in the export (`YYYY-MM-DD`, NZ
 * calendar), `licence` the constant `CC BY 4.0`, `generated_at` when the export was made (RFC 3339
 * UTC), `files` one entry per data file (`<table>.parquet` and `<table>.csv.gz` of every export
 * table; README.md and LICENSE are not listed).
 */
export const ExportManifest = z.object({
  day: z.iso.date().describe('The data day the export holds prices up to'),
  licence: z.literal('CC BY 4.0'),
  generated_at: z.iso.datetime().describe('When the export was written'),
  files: z.array(ExportFile),
});
/** A parsed export manifest (see {@link ExportManifest}). */
export type ExportManifest = z.infer<typeof ExportManifest>;

/** The folder a reader sees: `<exportDir>/latest`. */
export function latestExportDir(exportDir: string): string {
  return path.join(exportDir, LATEST);
}

/**
 * The manifest of the export `<exportDir>/latest` points to, or null when none has been published
 * (no `latest` link, or it points nowhere).
 * @throws when the manifest exists but is not valid JSON or does not match the contract (a ZodError).
 */
export async function readExportManifest(exportDir: string): Promise<ExportManifest | null> {
  let text: string;
  try {
    text = await fs.readFile(path.join(latestExportDir(exportDir), MANIFEST_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw e;
  }
  return ExportManifest.parse(JSON.parse(text));
}
