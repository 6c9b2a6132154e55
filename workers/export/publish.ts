/**
 * Publishing bulk exports: a staging folder, the atomic switch of `latest`, pruning, and the
 * manifest (api-spec "ExportManifest").
 *
 * Layout of `EXPORT_DIR` (`dir` below):
 *
 *     <dir>/.tmp-<random>/          a run in progress (removed when the run fails)
 *     <dir>/<day>T<HHMMSS>Z/        a published export: data files, manifest.json, README.md, LICENSE
 *     <dir>/latest -> <folder>      relative symlink to the newest published export
 *
 * A run writes everything into its staging folder, renames the folder to its final name, then
 * points `latest` at it by renaming a fresh symlink over the old one (`rename(2)` replaces it
 * atomically on POSIX): a reader resolving `latest` sees either the previous export or the new
 * one, complete. These functions assume the caller holds the export lock (workers/export/export.ts),
 * so no other run touches `dir` meanwhile.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ExportManifest, LATEST, MANIFEST_FILE, type ExportFile } from '../../src/services/exports.js';
/** Published exports kept by default (the newest, `latest`, included). */
export const DEFAULT_KEEP = 3;

const STAGING_PREFIX = '.tmp-';
const LINK_PREFIX = '.latest-';
/** A published folder's name: `<day>T<HHMMSS>Z`, with `-<n>` when that name was taken. */
const FOLDER_RE = /^\d{4}-\d{2}-\d{2}T\d{6}Z(-\d+)?$/;

/**
 * Size and SHA-256 of the file at `file` (streamed, any size), with its row count.
 * @throws when the file cannot be read.
 */
export async function describeFile(file: string, rows: number): Promise<ExportFile> {
  const hash = crypto.createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  const { size } = await fsp.stat(file);
  return { name: path.basename(file), bytes: size, rows, sha256: hash.digest('hex') };
}

/**
 * Writes `manifest` as `manifest.json` (pretty-printed UTF-8) into `folder`, after validating it.
 * @throws a ZodError when the manifest does not match the contract.
 */
export async function writeManifest(folder: string, manifest: ExportManifest): Promise<void> {
  const valid = ExportManifest.parse(manifest);
  await fsp.writeFile(path.join(folder, MANIFEST_FILE), `${JSON.stringify(valid, null, 2)}\n`);
}


/** The folder name `latest` points to (relative to `dir`), or null when there is no `latest` link. */
export async function latestFolder(dir: string): Promise<string | null> {
  try {
    return await fsp.readlink(path.join(dir, LATEST));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/**
 * Creates `dir` if needed and a fresh, empty staging folder `<dir>/.tmp-<random>` in it.
 * @returns the staging folder's absolute path.
 */
export async function createStaging(dir: string): Promise<string> {
  await fsp.mkdir(dir, { recursive: true });
  const staging = await fsp.mkdtemp(path.join(path.resolve(dir), STAGING_PREFIX));
  await fsp.chmod(staging, 0o755); // mkdtemp makes it private; a published export is world-readable
  return staging;
}

/** Removes a staging folder and everything in it (no error when it is already gone). */
export async function discardStaging(staging: string): Promise<void> {
  await fsp.rm(staging, { recursive: true, force: true });
}

/**
 * Removes what crashed runs left behind: staging folders `.tmp-*` and half-made links `.latest-*`.
 * Only safe while holding the export lock (no other run is writing).
 * @returns the names removed.
 */
export async function removeLeftovers(dir: string): Promise<string[]> {
  const names = await fsp.readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [] as string[];
    throw e;
  });
  const stale = names.filter((n) => n.startsWith(STAGING_PREFIX) || n.startsWith(LINK_PREFIX));
  for (const n of stale) await fsp.rm(path.join(dir, n), { recursive: true, force: true });
  return stale;
}

/**
 * The published folder name of an export of data day `day` made at `now`: `<day>T<HHMMSS>Z`, the
 * time in UTC. @throws RangeError on a malformed day.
 */
export function folderName(day: string, now: Date): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) throw new RangeError(`not a day: ${day}`);
  return `${day}T${now.toISOString().slice(11, 19).replace(/:/g, '')}Z`;
}

/** What {@link publish} did. */
export interface PublishResult {
  /** Name of the published folder inside `dir` (what `latest` now points to). */
  folder: string;
  /** Absolute path of the published folder. */
  path: string;
  /** Older published folders removed by pruning. */
  removed: string[];
}

/**
 * Publishes the complete staging folder `staging` as `<dir>/<name>` and switches `<dir>/latest`
 * to it atomically, then removes all but the newest `keep` published folders (never the one
 * `latest` points to). When `<dir>/<name>` exists already, `-2`, `-3`, … is appended.
 * @throws when a rename fails; before the switch the staging folder (or the renamed folder) is
 * left for the caller to discard and `latest` is untouched.
 */
export async function publish(dir: string, staging: string, name: string, keep = DEFAULT_KEEP): Promise<PublishResult> {
  const root = path.resolve(dir);
  let folder = name;
  for (let n = 2; ; n++) {
    try {
      await fsp.rename(staging, path.join(root, folder));
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || n > 100) throw e;
      folder = `${name}-${n}`;
    }
  }
  const target = path.join(root, folder);
  const link = path.join(root, `${LINK_PREFIX}${crypto.randomBytes(6).toString('hex')}`);
  try {
    await fsp.symlink(folder, link, 'dir');
    await fsp.rename(link, path.join(root, LATEST));
  } catch (e) {
    await fsp.rm(link, { force: true });
    // Not published: put the folder out of the way so a retry starts clean.
    await fsp.rm(target, { recursive: true, force: true });
    throw e;
  }
  // Published: failing to remove old exports must not fail the run (the next run prunes again).
  const removed = await prune(root, keep).catch(() => [] as string[]);
  return { folder, path: target, removed };
}

/**
 * Removes published folders beyond the newest `keep` (by their manifest's `generated_at`, else
 * the folder's modification time), never the one `latest` points to.
 * @returns the names removed.
 */
export async function prune(dir: string, keep = DEFAULT_KEEP): Promise<string[]> {
  const current = await latestFolder(dir);
  const names = (await fsp.readdir(dir)).filter((n) => FOLDER_RE.test(n));
  const dated: { name: string; at: number }[] = [];
  for (const name of names) {
    const full = path.join(dir, name);
    let at: number;
    try {
      const m = ExportManifest.parse(JSON.parse(await fsp.readFile(path.join(full, MANIFEST_FILE), 'utf8')));
      at = Date.parse(m.generated_at);
    } catch {
      at = (await fsp.stat(full)).mtimeMs;
    }
    dated.push({ name, at });
  }
  dated.sort((a, b) => b.at - a.at || b.name.localeCompare(a.name));
  const removed: string[] = [];
  for (const { name } of dated.slice(Math.max(keep, 1))) {
    if (name === current) continue;
    await fsp.rm(path.join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
