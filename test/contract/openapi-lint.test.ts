/**
 * The OpenAPI document as a client author tries it (issue 20 #5): `@redocly/cli lint` with its
 * `recommended` rules and Spectral with `spectral:oas` report nothing — no error, no warning, no
 * hint. Both linters are devDependencies (installed by `npm ci`) and run offline here: the
 * rulesets are built in, nothing is fetched (Redocly's telemetry and update check are switched
 * off through its environment variables).
 *
 * The document is the one a deployment serves (PUBLIC_URL set): without PUBLIC_URL the server
 * URL is `http://localhost:<PORT>`, and Redocly's `no-server-example.com` rightly warns about that
 * one server entry (a published document must name its public host).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMetaDocuments } from '../../facades/meta/index.js';
import { operations } from '../../facades/operations.js';

const run = promisify(execFile);
const BIN = new URL('../../node_modules/.bin/', import.meta.url).pathname;
const BASE = 'https://prices.example.nz';

let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
  const docs = buildMetaDocuments(operations, BASE);
  fs.writeFileSync(path.join(dir, 'openapi.json'), docs.openapiJson);
  fs.writeFileSync(path.join(dir, 'openapi.yaml'), docs.openapiYaml);
  fs.writeFileSync(path.join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
  fs.writeFileSync(path.join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs a linter; a non-zero exit still yields its output (problems found), other failures throw. */
async function lint(bin: string, args: string[]): Promise<string> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  try {
    return (await run(path.join(BIN, bin), args, { cwd: dir, env, maxBuffer: 64 << 20, timeout: 120_000 })).stdout;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; code?: unknown };
    const out = err.stdout?.trim() ?? '';
    if (out.startsWith('{') || out.startsWith('[')) return out;
    throw new Error(`${bin} failed (${String(err.code)}): ${err.stderr ?? ''}\n${err.stdout ?? ''}`);
  }
}

describe('OpenAPI lint', () => {
  it.each(['openapi.json', 'openapi.yaml'])('@redocly/cli lint (recommended) reports nothing on %s', async (file) => {
    const out = await lint('redocly', ['lint', file, '--config', 'redocly.yaml', '--format', 'json']);
    const report = JSON.parse(out) as { totals: Record<string, number>; problems: { ruleId: string; message: string; location?: { pointer?: string }[] }[] };
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 130_000);

  it('Spectral spectral:oas reports nothing (no error, warning, information or hint)', async () => {
    const out = await lint('spectral', ['lint', 'openapi.json', '--ruleset', '.spectral.yaml', '--format', 'json', '--fail-severity', 'hint', '--quiet']);
    const results = JSON.parse(out.trim() || '[]') as { code: string; message: string; path: string[] }[];
    expect(results.map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`)).toEqual([]);
  }, 130_000);

  it('the linters can fail: a broken document is reported by both', async () => {
    const doc = JSON.parse(fs.readFileSync(path.join(dir, 'openapi.json'), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    delete doc.security;
    delete doc.paths['/llms.txt'].get.operationId;
    fs.writeFileSync(path.join(dir, 'broken.json'), JSON.stringify(doc));
    const redocly = JSON.parse(await lint('redocly', ['lint', 'broken.json', '--config', 'redocly.yaml', '--format', 'json'])) as { problems: { ruleId: string }[] };
    expect(redocly.problems.map((p) => p.ruleId)).toEqual(expect.arrayContaining(['security-defined', 'operation-operationId']));
    const spectral = JSON.parse(await lint('spectral', ['lint', 'broken.json', '--ruleset', '.spectral.yaml', '--format', 'json', '--fail-severity', 'hint', '--quiet'])) as { code: string }[];
    expect(spectral.map((r) => r.code)).toContain('operation-operationId');
  }, 130_000);
});
