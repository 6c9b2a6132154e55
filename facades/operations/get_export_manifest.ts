/** get_export_manifest: GET /data/latest/manifest.json → ExportManifest (404 before the first export). */
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { ExportManifest } from '../resources.js';

/** The operation entry. */
export default defineOperation({
  name: 'get_export_manifest',
  summary: 'The nightly bulk export: every file with its size, rows and SHA-256 (Zstd Parquet and gzipped CSV).',
  method: 'GET',
  family: 'light',
  path: '/data/latest/manifest.json',
  description:
    'Lists the nightly exports `listings`, `stores`, `price_spans` (the full span history, national and store-level), `index_daily` and `basket`, each as Zstd Parquet (`<name>.parquet`) and gzipped CSV (`<name>.csv.gz`). ' +
    'Download the files from `/data/latest/<name>`: they are not rate limited, support HTTP ranges and ETags, and carry long cache lifetimes. ' +
    'Data is CC BY 4.0: attribute the service and the retailers (see README.md beside the files). 404 before the first export.',
  params: z.object({}),
  variables: () => ({}),
  result: ExportManifest,
  errors: [404],
  // The graph types `licence` as String; the contract fixes it to one value.
  shape: ({ exportManifest: m }) => ({ ...m, licence: m.licence as ExportManifest['licence'] }),
});
