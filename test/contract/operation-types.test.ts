/**
 * facades/generated/operations.ts (the generated types of every persisted document, which the
 * registry entries' `variables` and `shape` are checked against) is what `npm run codegen` makes
 * from the current documents, fragments and SDL: editing a document without regenerating fails here.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_PATH, generateOperationTypes } from '../../facades/codegen.js';
import { operations } from '../../facades/operations.js';

describe('facades/generated/operations.ts', () => {
  it('is up to date with schema/operations, schema/fragments.graphql and schema/schema.graphql (npm run codegen)', async () => {
    const committed = fs.readFileSync(GENERATED_PATH, 'utf8');
    expect(committed, 'facades/generated/operations.ts is stale: run `npm run codegen`').toBe(await generateOperationTypes());
  });

  it('types every registry operation', () => {
    const committed = fs.readFileSync(GENERATED_PATH, 'utf8');
    for (const op of operations) expect(committed).toContain(`  ${op.name}: { result: ${op.name}Query; variables: ${op.name}QueryVariables };`);
  });
});
