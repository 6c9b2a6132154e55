/**
 * The ExportManifest has one home, src/services/exports.ts. Until the facades' resource schema
 * (facades/resources.ts ExportManifest) wraps it, the two must accept and refuse the same manifests.
 */
import { describe, expect, it } from 'vitest';
import { ExportManifest } from '../../src/services/exports.js';
import { ExportManifest as FacadeExportManifest } from '../../facades/resources.js';

const file = { name: 'listings.csv.gz', bytes: 10, rows: 2, sha256: 'a'.repeat(64) };
const good = { day: '2026-08-03', licence: 'CC BY 4.0', generated_at: '2026-08-04T01:02:03Z', files: [file] };

const cases: [string, unknown][] = [
  ['a valid manifest', good],
  ['no files', { ...good, files: [] }],
  ['another licence', { ...good, licence: 'MIT' }],
  ['a bad day', { ...good, day: '2026-13-01' }],
  ['a bad timestamp', { ...good, generated_at: 'yesterday' }],
  ['a negative size', { ...good, files: [{ ...file, bytes: -1 }] }],
  ['a fractional row count', { ...good, files: [{ ...file, rows: 1.5 }] }],
  ['an upper-case digest', { ...good, files: [{ ...file, sha256: 'A'.repeat(64) }] }],
  ['a missing field', { day: good.day, licence: good.licence, files: [] }],
];

describe('ExportManifest: src and facade schemas agree', () => {
  it.each(cases)('%s', (_label, manifest) => {
    expect(FacadeExportManifest.safeParse(manifest).success).toBe(ExportManifest.safeParse(manifest).success);
  });
});
