/**
 * Contract checks without a database: the committed SDL matches the schema Pothos builds (run
 * `npm run schema:print` after changing the graph), every persisted operation document validates
 * against it (with the shared fragments they spread), and documents and registry entries correspond
 * one to one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildSchema, parse, validate, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { documentText, operations, OPERATIONS_DIR } from '../../facades/operations.js';
import { printSdl, SDL_PATH } from '../../src/graph/print.js';
import { schema } from '../../src/graph/index.js';
import { ROOT_DIR } from '../../src/env.js';
import { EXPORT_TABLES } from '../../workers/export/columns.js';
import { tableReference } from '../../workers/export/attribution.js';

const documents = fs.readdirSync(OPERATIONS_DIR).filter((f) => f.endsWith('.graphql')).sort();

describe('schema/schema.graphql', () => {
  it('matches the schema built from src/graph (npm run schema:print)', () => {
    const committed = fs.readFileSync(SDL_PATH, 'utf8');
    expect(committed, 'schema/schema.graphql drifted: run `npm run schema:print` and commit it').toBe(printSdl());
  });
});

describe('schema/operations/*.graphql', () => {
  const printed = buildSchema(fs.readFileSync(SDL_PATH, 'utf8'));

  it('exist', () => {
    expect(documents.length).toBeGreaterThan(0);
  });

  it.each(documents)('%s validates against the committed SDL and the built schema', (file) => {
    const doc = parse(documentText(path.basename(file, '.graphql')));
    expect(validate(printed, doc).map((e) => e.message)).toEqual([]);
    expect(validate(schema, doc).map((e) => e.message)).toEqual([]);
    const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
    expect(ops.map((o) => [o.operation, o.name?.value])).toEqual([['query', path.basename(file, '.graphql')]]);
  });

  it('correspond one to one with the operation registry', () => {
    const names = operations.map((o) => o.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(documents.map((f) => path.basename(f, '.graphql')));
    const routes = operations.map((o) => `${o.method} ${o.path}`);
    expect(new Set(routes).size).toBe(routes.length);
    // Every operation lives under /api/v1/ but the internal ones and the manifest (api-spec "Bulk data").
    for (const op of operations) {
      const ok = op.path.startsWith('/api/v1/') || op.internal === true || (op.name === 'get_export_manifest' && op.path === '/data/latest/manifest.json');
      expect(ok, `${op.name} path ${op.path}`).toBe(true);
    }
  });
});

describe('README export reference', () => {
  it('lists every export table and column exactly as workers/export/columns.ts does', () => {
    const readme = fs.readFileSync(path.join(ROOT_DIR, 'README.md'), 'utf8');
    for (const table of EXPORT_TABLES) expect(readme).toContain(tableReference(table).replace(/^### /, '#### '));
  });
});
