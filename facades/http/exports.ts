/**
 * Export files (api-spec "Bulk data"): GET/HEAD /data/latest/<name> serves the files of
 * `<EXPORT_DIR>/latest` (the folder the export worker switches atomically) with @fastify/static —
 * HTTP ranges, ETag/Last-Modified revalidation, a long cache lifetime, never rate limited (the
 * budget covers /api/v1 and /mcp only). The manifest itself, /data/latest/manifest.json, is the
 * registry's get_export_manifest operation (a more specific route than this wildcard).
 */
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { latestExportDir } from '../../src/services/exports.js';
import { registerStaticFiles } from './static-files.js';

/**
 * Cache lifetime of export files: a day. Exports are written once a night, and a file's ETag changes
 * with it, so a revalidating client never mixes two nights' files with one manifest for long.
 */
export const EXPORT_CACHE_CONTROL = 'public, max-age=86400';

/** Media types of the export files that `send` does not know. */
const TYPES: ReadonlyMap<string, string> = new Map([
  ['.parquet', 'application/vnd.apache.parquet'],
  ['.md', 'text/markdown; charset=utf-8'],
]);

/** Registers /data/latest/* over `<exportDir>/latest` (a missing folder answers 404 until the first export). */
export async function registerExportFiles(app: FastifyInstance, exportDir: string): Promise<void> {
  await registerStaticFiles(app, {
    root: latestExportDir(exportDir),
    createdOnDemand: true,
    prefix: '/data/latest/',
    cacheControl: EXPORT_CACHE_CONTROL,
    contentType: (filePath) => TYPES.get(path.extname(filePath)),
  });
}
