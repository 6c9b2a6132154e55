/**
 * The published nightly export (api-spec "Bulk data", ExportManifest): reading the manifest of
 * `<EXPORT_DIR>/latest`, which the export worker (workers/export) switches atomically.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

/** One exported file: name, size in bytes, data rows, SHA-256 (hex) of its bytes. */
export interface ExportFileEntry {
  name: string;
  bytes: number;
  rows: number;
  sha256: string;
}

/** The contract's ExportManifest: data day, licence (always "CC BY 4.0"), generation time, files. */
export interface ExportManifestData {
  day: string;
  licence: 'CC BY 4.0';
  generated_at: string;
  files: ExportFileEntry[];
}

/** The folder a reader sees: `<exportDir>/latest`. */
export function latestExportDir(exportDir: string): string {
  return path.join(exportDir, 'latest');
}

/**
 * The manifest of the latest export in `exportDir`, or null when none has been published (no
 * `latest`, or no manifest in it).
 * @throws Error when a manifest exists but is not a valid ExportManifest (a server fault).
 */
export async function readExportManifest(exportDir: string): Promise<ExportManifestData | null> {
  let text: string;
  try {
    text = await fs.readFile(path.join(latestExportDir(exportDir), 'manifest.json'), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw e;
  }
  const m = JSON.parse(text) as ExportManifestData;
  const validFile = (f: ExportFileEntry) =>
    typeof f?.name === 'string' && Number.isSafeInteger(f.bytes) && Number.isSafeInteger(f.rows) && /^[0-9a-f]{64}$/.test(f.sha256);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(m?.day) || m.licence !== 'CC BY 4.0' || typeof m.generated_at !== 'string' || !Array.isArray(m.files) || !m.files.every(validFile)) {
    throw new Error(`invalid export manifest in ${latestExportDir(exportDir)}`);
  }
  return { day: m.day, licence: m.licence, generated_at: m.generated_at, files: m.files.map(({ name, bytes, rows, sha256 }) => ({ name, bytes, rows, sha256 })) };
}
