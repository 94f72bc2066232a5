import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';

/**
 * The local channel over which a server holding the embedded database carries out the commands
 * run beside it (docs/api.md section 11): a Unix domain socket in DATA_DIR that only its owner may
 * open (mode 0600), one JSON line asked (`{"command", "args"}`) and one answered (`{"code",
 * "stdout", "stderr"}`). The arguments may hold a password: they are never logged.
 */
export interface CommandRequest {
  command: string;
  args: string[];
}

export interface CommandAnswer {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CommandChannel {
  readonly path: string;
  /** Stops taking commands, waits for those under way, and removes the socket. */
  close(): Promise<void>;
}

/** What asking came to: an answer, nobody listening (yet), or a reason not to ask at all. */
export type Asked = { kind: 'answered'; answer: CommandAnswer } | { kind: 'absent' } | { kind: 'failed'; reason: string };

/** A request line is a command and its arguments: anything longer is not one. */
const MAX_REQUEST_BYTES = 64 * 1024;
/** A client that connects says what it wants at once. */
const REQUEST_WITHIN_MS = 5_000;
/** sun_path: 108 bytes on Linux, 104 elsewhere, with the terminating NUL. */
const MAX_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

export function commandSocketPath(dataDir: string): string {
  return join(dataDir, 'croupier.sock');
}

/** Why no command can travel over the socket at `path` on this machine, if none can. */
export function channelUnavailable(path: string): string | undefined {
  if (process.platform === 'win32') return 'this platform has no Unix domain sockets';
  if (Buffer.byteLength(path) > MAX_PATH_BYTES) return `the socket path ${path} is longer than the ${MAX_PATH_BYTES} bytes a socket allows`;
  return undefined;
}

function parseRequest(line: string): CommandRequest | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    if (typeof value !== 'object' || value === null) return undefined;
    const { command, args } = value as Record<string, unknown>;
    if (typeof command !== 'string' || !Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) return undefined;
    return { command, args };
  } catch {
    return undefined;
  }
}

/** Reads one line from `socket` (at most `limit` bytes): undefined when it ends, errs or grows past the limit first. */
function readLine(socket: Socket, limit: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const done = (line: string | undefined) => {
      socket.removeAllListeners('data');
      resolve(line);
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end !== -1) done(text.slice(0, end));
      else if (Buffer.byteLength(text) > limit) done(undefined);
    });
    socket.once('end', () => done(undefined));
    socket.once('error', () => done(undefined));
    socket.once('close', () => done(undefined));
  });
}

/**
 * Opens the channel of a server that holds the embedded database's lock: any socket left at the
 * path is a dead server's (the lock says nobody else holds the database) and is replaced. The
 * socket is created with mode 0600 from the start (a umask around the bind), then checked.
 */
export async function openCommandChannel(
  dataDir: string,
  handle: (request: CommandRequest) => Promise<CommandAnswer>,
  log: FastifyBaseLogger,
): Promise<CommandChannel> {
  const path = commandSocketPath(dataDir);
  const unavailable = channelUnavailable(path);
  if (unavailable !== undefined) throw new Error(unavailable);
  try {
    if (!lstatSync(path).isSocket()) throw new Error(`${path} exists and is not a socket`);
    rmSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const underWay = new Set<Promise<unknown>>();
  /** Connections that have not asked yet: dropped at close, while commands under way finish. */
  const silent = new Set<Socket>();
  const server = createServer((socket) => {
    silent.add(socket);
    socket.once('close', () => silent.delete(socket));
    socket.setTimeout(REQUEST_WITHIN_MS, () => socket.destroy());
    const work = readLine(socket, MAX_REQUEST_BYTES)
      .then(async (line) => {
        silent.delete(socket);
        socket.setTimeout(0);
        const request = line === undefined ? undefined : parseRequest(line);
        if (request === undefined) {
          socket.destroy();
          return;
        }
        const answer = await handle(request);
        if (!socket.destroyed) socket.end(`${JSON.stringify(answer)}\n`);
      })
      .catch((error: unknown) => {
        // The handler answers every failure of a command itself; this is the channel's own.
        log.error({ err: error instanceof Error ? { type: error.name, message: error.message } : String(error) }, 'command channel failed');
        socket.destroy();
      });
    underWay.add(work);
    void work.finally(() => underWay.delete(work));
  });
  const mask = process.umask(0o177);
  try {
    server.listen(path);
  } finally {
    process.umask(mask);
  }
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error as Error))]);
  chmodSync(path, 0o600);
  const { mode, uid } = lstatSync(path);
  if ((mode & 0o077) !== 0 || uid !== process.getuid?.()) {
    server.close();
    throw new Error(`the socket ${path} is not private to this user (mode ${(mode & 0o777).toString(8)})`);
  }
  log.debug({ path }, 'taking commands on the local socket');
  return {
    path,
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      // A command under way finishes and is answered; a connection that asked nothing yet is dropped.
      for (const socket of silent) socket.destroy();
      await Promise.all(underWay);
      await closed;
      rmSync(path, { force: true });
    },
  };
}

/** Whether the socket at `path` may be trusted with a command (and a password): ours, and nobody else's to open. */
function untrusted(path: string): string | undefined {
  const stats = lstatSync(path);
  const { mode, uid } = stats;
  const ownUid = process.getuid?.();
  if (!stats.isSocket()) return `${path} is not a socket`;
  if (ownUid !== undefined && uid !== ownUid) return `the socket ${path} belongs to another user`;
  if ((mode & 0o077) !== 0) return `the socket ${path} may be opened by other users (mode ${(mode & 0o777).toString(8)})`;
  return undefined;
}

/**
 * Asks the server whose channel is in `dataDir` to carry out `request`, and waits up to
 * `timeoutMs` for its answer. `absent` when nobody listens there (a server still starting, or
 * a socket left by one that was killed).
 */
export async function askServer(dataDir: string, request: CommandRequest, timeoutMs: number): Promise<Asked> {
  const path = commandSocketPath(dataDir);
  const unavailable = channelUnavailable(path);
  if (unavailable !== undefined) return { kind: 'failed', reason: unavailable };
  try {
    const reason = untrusted(path);
    if (reason !== undefined) return { kind: 'failed', reason };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'failed', reason: `the socket ${path} cannot be examined (${code ?? String(error)})` };
  }
  const socket = connect(path);
  try {
    await Promise.race([once(socket, 'connect'), once(socket, 'error').then(([error]) => Promise.reject(error as Error))]);
  } catch (error) {
    socket.destroy();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED' || code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'failed', reason: `the server's socket could not be reached (${code ?? String(error)})` };
  }
  socket.write(`${JSON.stringify(request)}\n`);
  const timer = setTimeout(() => socket.destroy(), timeoutMs);
  const line = await readLine(socket, Number.POSITIVE_INFINITY);
  clearTimeout(timer);
  socket.destroy();
  const answer = line === undefined ? undefined : parseAnswer(line);
  if (answer === undefined) {
    return {
      kind: 'failed',
      reason: `the server gave no answer (it stopped, or took over ${Math.round(timeoutMs / 1000)} s); the command may or may not have been carried out`,
    };
  }
  return { kind: 'answered', answer };
}

function parseAnswer(line: string): CommandAnswer | undefined {
  try {
    const { code, stdout, stderr } = JSON.parse(line) as Record<string, unknown>;
    if (typeof code !== 'number' || typeof stdout !== 'string' || typeof stderr !== 'string') return undefined;
    return { code, stdout, stderr };
  } catch {
    return undefined;
  }
}
