/**
 * Prints the schema as SDL (types sorted by name) to schema/schema.graphql. Run with
 * `npm run schema:print`; test/contract/schema.test.ts fails when the committed file drifts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { ROOT_DIR } from '../env.js';
import { schema } from './index.js';

/** Where the committed SDL lives. */
export const SDL_PATH = path.join(ROOT_DIR, 'schema', 'schema.graphql');

/** The schema as SDL text, types in name order, ending with a newline. */
export function printSdl(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(SDL_PATH, printSdl());
  console.log(`wrote ${path.relative(process.cwd(), SDL_PATH)}`);
}
