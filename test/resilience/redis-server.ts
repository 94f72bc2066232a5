// A private `redis-server` for the Redis outage tests: started on a port of its own, without
// persistence (as a Redis that loses its data on restart), killed, paused and started again there.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { answersOn } from './instances.ts';

/** Whether `redis-server` can be run here. */
export function redisServerInstalled(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

export class RedisServer {
  readonly port: number;
  #child: ChildProcess | undefined;
  #output = '';

  constructor(port: number) {
    this.port = port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** Starts it on its port and resolves once it accepts connections. */
  async start(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    child.stdout.on('data', (chunk: Buffer) => (this.#output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (this.#output += chunk.toString()));
    for (let tries = 0; !(await answersOn(this.port)); tries++) {
      if (child.exitCode !== null || tries > 200) throw new Error(`redis-server did not start:\n${this.#output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Gone at once, as a crashed Redis: connections are reset, nothing is saved. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
    this.#child = undefined;
  }

  /** Still holding its connections but answering nothing, as behind a network partition. */
  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  resume(): void {
    this.#child?.kill('SIGCONT');
  }
}
