/**
 * `--help` on every command of the worker CLI (issue 28 #4: `npm run collect -- --help` answered
 * `error: collect needs a retailer`). The commands are read from workers/cli.ts itself (the `case`
 * labels of its dispatch) and from package.json's scripts that run it, not from its usage table, so a
 * command that is dispatched but has no usage fails here. Each is spawned for real, with a database
 * URL nothing listens on: help must answer without touching the database.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../src/env.js';

const TSX = path.join(ROOT_DIR, 'node_modules/.bin/tsx');
const CLI = 'workers/cli.ts';
const SOURCE = fs.readFileSync(path.join(ROOT_DIR, CLI), 'utf8');

/** The commands workers/cli.ts dispatches: the `case '<name>':` labels of its switch. */
const DISPATCHED = [...new Set([...SOURCE.matchAll(/^\s*case '([a-z-]+)':/gm)].map((m) => m[1]))];

/** package.json scripts running one command of the CLI (`"collect": "tsx workers/cli.ts collect"`), by script name. */
const SCRIPTS = Object.entries((JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts)
  .map(([script, line]) => [script, /^tsx workers\/cli\.ts ([a-z-]+)$/.exec(line)?.[1]] as const)
  .filter((e): e is readonly [string, string] => e[1] !== undefined);

/** Environment of every run: a database nobody serves, so any attempt to open it fails. */
const ENV = { ...process.env, DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none', DEBUG: '' };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` in the repository with {@link ENV}. */
function run(command: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT_DIR, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the worker CLI with `args` (what `npm run worker -- <args>` runs). */
const cli = (args: string[]) => run(TSX, [CLI, ...args]);

/** Runs `jobs` at most `limit` at a time (each spawn loads tsx; the machine has few cores). */
async function pooled<T, R>(items: readonly T[], limit: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Checks one command's help: exit 0, its usage line first, a description, the help option, nothing on stderr. */
function expectCommandUsage(command: string, r: Run, how: string): void {
  const what = `${command} ${how}: ${r.stderr}`;
  expect(r.code, what).toBe(0);
  expect(r.stderr, what).toBe('');
  const lines = r.stdout.trimEnd().split('\n');
  expect(lines[0], what).toMatch(new RegExp(`^usage: npm run worker -- ${command}( |$)`));
  expect(lines[2]?.trim().length ?? 0, `${what}: a one-line description after the usage line`).toBeGreaterThan(0);
  expect(r.stdout, what).toMatch(/^options:\n(.*\n)*\s+-h, --help\s/m);
}

describe('worker CLI help', () => {
  it('finds the commands to check', () => {
    expect(DISPATCHED.length).toBeGreaterThanOrEqual(20);
    for (const c of ['ingest', 'import', 'collect', 'export', 'import-export', 'schedule', 'start', 'link', 'basket-add']) expect(DISPATCHED).toContain(c);
    expect(SCRIPTS.map(([s]) => s)).toEqual(expect.arrayContaining(['ingest', 'import', 'export', 'import-export', 'schedule', 'collect']));
  });

  it('`--help` and `help` list every command, each with a description, and exit 0', async () => {
    const runs = await pooled([['--help'], ['help']], 2, cli);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^usage: npm run worker -- <command>/);
      for (const c of DISPATCHED) expect(r.stdout, c).toMatch(new RegExp(`^  ${c}( .*)?\\n {6}\\S`, 'm'));
    }
    expect(runs[1].stdout).toBe(runs[0].stdout);
  }, 120_000);

  it('every dispatched command answers `<command> --help` with its own usage and exits 0, without a database', async () => {
    const runs = await pooled(DISPATCHED, 4, (c) => cli([c, '--help']));
    DISPATCHED.forEach((c, i) => expectCommandUsage(c, runs[i], '--help'));
  }, 300_000);

  it('`-h` anywhere among the arguments and `help <command>` print the same usage', async () => {
    const [flag, late, topic] = await pooled([['collect', '-h'], ['collect', 'woolworths', '--day', '2026-08-03', '--help'], ['help', 'collect']], 3, cli);
    expectCommandUsage('collect', flag, '-h');
    expectCommandUsage('collect', late, 'woolworths … --help');
    expectCommandUsage('collect', topic, 'help collect');
    expect(late.stdout).toBe(flag.stdout);
    expect(topic.stdout).toBe(flag.stdout);
    for (const option of ['--stores', '--origin', '--image-origin', '--day', '<retailer|all>', 'woolworths']) expect(flag.stdout).toContain(option);
  }, 120_000);

  it('`npm run collect -- --help` prints collect\'s usage; every npm script running one command runs a checked one', async () => {
    // Each script is `tsx workers/cli.ts <command>`: `npm run <script> -- --help` is `<command> --help`, checked above.
    for (const [script, command] of SCRIPTS) expect(DISPATCHED, `npm run ${script}`).toContain(command);
    const r = await run('npm', ['run', '--silent', 'collect', '--', '--help']);
    expectCommandUsage('collect', r, '(npm run collect -- --help)');
  }, 120_000);

  it('an unknown command or help topic exits 2 with the usage on stderr; so does no command at all', async () => {
    const [unknown, topic, none] = await pooled([['frobnicate'], ['help', 'frobnicate'], []], 3, cli);
    for (const r of [unknown, topic]) {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^unknown command "frobnicate"\nusage: npm run worker -- <command>/);
    }
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^usage: npm run worker -- <command>/);
  }, 120_000);
});
