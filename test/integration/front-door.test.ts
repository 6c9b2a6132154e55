/**
 * A fresh `npm start` as a newcomer meets it (issue 28 #4, the friction list): the real API process
 * (`tsx src/main.ts`, START_WORKER=false) over a fresh test database, with an EXPORT_DIR and an
 * IMAGE_DIR that do not exist yet (a fresh clone has neither until the first export and the first
 * image conversion).
 *
 * - Start-up logs no warning: folders created on demand are not reported as folders that "must
 *   exist" (facades/http/static-files.ts `createdOnDemand`).
 * - The landing page links nothing that answers 404: before the first export it says the first
 *   export has not run yet instead of linking the manifest; once an export is published (by the
 *   export worker's own publishing code) the next request links the manifest, and it answers 200.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRONT_DOOR_LINKS } from '../../facades/http/pages.js';
import { ROOT_DIR } from '../../src/env.js';
import { createStaging, folderName, publish, writeManifest } from '../../workers/export/publish.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

let db: TestDatabase;
let child: ChildProcess;
let scratch: string;
let exportDir: string;
let base = '';
let output = '';

beforeAll(async () => {
  db = await createTestDatabase('front_door');
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'front-door-'));
  exportDir = path.join(scratch, 'exports');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: db.url,
    START_WORKER: 'false',
    PORT: '0',
    HOST: '127.0.0.1',
    EXPORT_DIR: exportDir,
    IMAGE_DIR: path.join(scratch, 'images'),
    LOG_LEVEL: 'info',
  };
  for (const name of ['PUBLIC_URL', 'REDIS_URL', 'ELASTICSEARCH_URL']) delete env[name];
  child = spawn(path.join(ROOT_DIR, 'node_modules/.bin/tsx'), ['src/main.ts'], { cwd: ROOT_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API process exited ${child.exitCode}:\n${output}`);
    const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
    if (listening && /"msg":"serving"/.test(output)) {
      base = listening[1];
      break;
    }
    if (Date.now() - t0 > 90_000) throw new Error(`the API process is not serving after 90 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await db?.drop();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

/** The start-up log as pino lines (JSON), up to and including "serving". */
function startupLog(): { level: number; msg: string }[] {
  const lines = output.split('\n');
  const end = lines.findIndex((l) => l.includes('"msg":"serving"'));
  return lines
    .slice(0, end + 1)
    .filter((l) => l.trim().length > 0)
    .map((l) => {
      try {
        return JSON.parse(l) as { level: number; msg: string };
      } catch {
        return { level: 100, msg: `(not a log line) ${l}` }; // anything else printed counts as noise
      }
    });
}

/** The landing page (HTML) and the site-local addresses it names (href, src, module imports). */
async function landing(): Promise<{ html: string; urls: string[] }> {
  const r = await fetch(`${base}/`, { headers: { accept: 'text/html' } });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/html/);
  const html = await r.text();
  const urls = [...html.matchAll(/(?:href|src)="([^"]+)"|from '([^']+)'/g)].map((m) => m[1] ?? m[2]);
  return { html, urls: [...new Set(urls)] };
}

/** Fetches each address; returns those answering 404 (or 5xx), with their status. */
async function deadLinks(urls: string[]): Promise<string[]> {
  const dead: string[] = [];
  for (const url of urls) {
    expect(url.startsWith('/'), `${url} is site-local`).toBe(true);
    const r = await fetch(`${base}${url}`);
    await r.arrayBuffer();
    if (r.status === 404 || r.status >= 500) dead.push(`${url} → ${r.status}`);
  }
  return dead;
}

describe('a fresh start', () => {
  it('logs no warning, and none about folders created on demand (exports, images)', () => {
    expect(fs.existsSync(exportDir), 'EXPORT_DIR does not exist yet').toBe(false);
    const log = startupLog();
    expect(log.map((l) => l.msg)).toContain('serving');
    expect(output).not.toMatch(/must exist/);
    expect(log.filter((l) => l.level >= 40).map((l) => l.msg)).toEqual([]);
  });
});

describe('the landing page', () => {
  it('before the first export: says so, links no manifest, and every address it names answers', async () => {
    const { html, urls } = await landing();
    expect(html).toContain('the first export has not run yet');
    expect(urls).not.toContain(FRONT_DOOR_LINKS.export_manifest);
    expect((await fetch(`${base}${FRONT_DOOR_LINKS.export_manifest}`)).status, 'the manifest is indeed absent').toBe(404);
    for (const [key, href] of Object.entries(FRONT_DOOR_LINKS)) {
      if (key !== 'export_manifest') expect(urls, key).toContain(href);
    }
    expect(await deadLinks(urls)).toEqual([]);
  });

  it('once an export is published: links the manifest on the next request, and every address answers', async () => {
    const staging = await createStaging(exportDir);
    const now = new Date();
    await writeManifest(staging, { day: '2026-08-03', licence: 'CC BY 4.0', generated_at: now.toISOString(), files: [] });
    await publish(exportDir, staging, folderName('2026-08-03', now));

    const { html, urls } = await landing();
    expect(html).not.toContain('the first export has not run yet');
    for (const href of Object.values(FRONT_DOOR_LINKS)) expect(urls).toContain(href);
    const manifest = await fetch(`${base}${FRONT_DOOR_LINKS.export_manifest}`);
    expect(manifest.status).toBe(200);
    expect(((await manifest.json()) as { day: string }).day).toBe('2026-08-03');
    expect(await deadLinks(urls)).toEqual([]);
  });
});
