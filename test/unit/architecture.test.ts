/**
 * The layering of issue 27: the API process (src/, facades/) imports nothing from workers/ (it
 * starts the worker process by path, src/supervisor.ts, and never runs a job itself). Reads every
 * import and export-from specifier, static and dynamic, of every TypeScript file under src/ and
 * facades/, resolves relative ones and fails naming each that lands in workers/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../src/env.js';

/** Every .ts file below `dir` (generated code included: it is part of the API process too). */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...tsFiles(p));
    else if (/\.(ts|js|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Module specifiers of `import … from 'x'`, `export … from 'x'`, `import 'x'` and `import('x')`. */
function specifiers(source: string): string[] {
  const re = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"\n]+)\1/g;
  return [...source.matchAll(re)].map((m) => m[2]);
}

describe('the API process imports nothing from workers/', () => {
  it('finds the specifiers it must (the check can fail)', () => {
    expect(specifiers(`import { a } from '../workers/x.js';\nexport * from "./y.js";\nconst m = await import('../../workers/z.js');\nimport './side.js';`))
      .toEqual(['../workers/x.js', './y.js', '../../workers/z.js', './side.js']);
  });

  it('no file under src/ or facades/ resolves an import into workers/', () => {
    const workers = path.join(ROOT_DIR, 'workers') + path.sep;
    const offenders: string[] = [];
    for (const dir of ['src', 'facades']) {
      for (const file of tsFiles(path.join(ROOT_DIR, dir))) {
        for (const spec of specifiers(fs.readFileSync(file, 'utf8'))) {
          if (!spec.startsWith('.')) continue;
          if (path.resolve(path.dirname(file), spec).startsWith(workers)) offenders.push(`${path.relative(ROOT_DIR, file)} → ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
