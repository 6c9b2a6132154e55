/**
 * ExportManifest (api-spec "Bulk data"): root field `exportManifest`, the manifest of the latest
 * nightly export; NOT_FOUND before the first export.
 */
import { builder } from '../builder.js';
import { NotFound } from '../errors.js';
import { readExportManifest, type ExportFile, type ExportManifest } from '../services/exports.js';

const ExportFileRef = builder.objectRef<ExportFile>('ExportFile').implement({
  description: 'One file of the export, downloadable from /data/latest/<name>.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'File name, e.g. price_spans.parquet.' }),
    bytes: t.expose('bytes', { type: 'SafeInt', description: 'Size in bytes.' }),
    rows: t.expose('rows', { type: 'SafeInt', description: 'Data rows (the CSV header not counted).' }),
    sha256: t.exposeString('sha256', { description: 'SHA-256 of the bytes, hex.' }),
  }),
});

const ExportManifestRef = builder.objectRef<ExportManifest>('ExportManifest').implement({
  description: 'The nightly bulk export: Zstd Parquet and gzipped CSV of listings, stores, price_spans, index_daily and basket.',
  fields: (t) => ({
    day: t.expose('day', { type: 'Day', description: 'The data day the export holds prices up to.' }),
    licence: t.exposeString('licence', { description: 'Always "CC BY 4.0".' }),
    generatedAt: t.exposeString('generated_at', { description: 'When the export was written (RFC 3339).' }),
    files: t.field({ type: [ExportFileRef], resolve: (m) => m.files }),
  }),
});

builder.queryField('exportManifest', (t) =>
  t.field({
    type: ExportManifestRef,
    description: 'The manifest of the latest nightly export; NOT_FOUND when no export has run.',
    resolve: async (_root, _args, ctx) => {
      const m = ctx.exportDir ? await readExportManifest(ctx.exportDir) : null;
      if (!m) throw new NotFound('No export has been published yet');
      return m;
    },
  }),
);
