// A real pg_auto_failover formation on this machine (Debian's postgresql-15-auto-failover): a
// monitor and three PostgreSQL nodes on local ports, run as the `postgres` user (pg_autoctl
// refuses root) in a temporary directory, with the monitor's timeouts short enough for a test.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './instances.ts';

const PG_AUTOCTL = '/usr/bin/pg_autoctl';
const PG_BIN = '/usr/lib/postgresql/15/bin';
const DATABASE = 'croupier';

/** Why the formation tests cannot run here, or undefined when they can. */
export function formationUnavailable(): string | undefined {
  if (!existsSync(PG_AUTOCTL) || !existsSync(join(PG_BIN, 'pg_ctl'))) return 'postgresql-15-auto-failover is not installed';
  const postgres = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  if (postgres.status !== 0) return 'there is no postgres user to run pg_autoctl as';
  const me = process.getuid?.();
  if (me !== 0 && String(me) !== postgres.stdout.trim())
    return 'pg_autoctl must run as postgres: needs root (runuser) or the postgres user';
  return undefined;
}

/**
 * The monitor's timeouts for the test (milliseconds), the defaults in brackets: health checks
 * every second (5 s), a node unhealthy after 3 s (20 s), a primary that cannot reach the monitor
 * demotes itself after 5 s (30 s).
 */
const MONITOR_SETTINGS: Record<string, number> = {
  health_check_period: 1000,
  health_check_timeout: 1000,
  health_check_max_retries: 1,
  health_check_retry_delay: 500,
  node_considered_unhealthy_timeout: 3000,
  primary_demote_timeout: 5000,
  startup_grace_period: 2000,
};

export interface FormationNode {
  name: string;
  port: number;
  pgdata: string;
  process: ChildProcess;
}

export interface NodeState {
  name: string;
  port: number;
  reported: string;
  assigned: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs as postgres (runuser when root), with PostgreSQL 15's programs first on PATH. */
function asPostgres(args: string[]): [string, string[]] {
  const env = ['env', `PATH=${PG_BIN}:/usr/bin:/bin`, 'LANG=C.UTF-8'];
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', ...env, ...args]] : [env[0]!, [...env.slice(1), ...args]];
}

/** Every process below `pid` (from /proc), deepest last. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const pending = [pid];
  while (pending.length > 0) {
    const next = pending.shift()!;
    for (const child of children.get(next) ?? []) {
      found.push(child);
      pending.push(child);
    }
  }
  return found;
}

export class Formation {
  readonly dir: string;
  readonly monitorPort: number;
  readonly nodes: FormationNode[] = [];
  #monitor: ChildProcess | undefined;
  readonly #logs = new Map<ChildProcess, () => string>();

  private constructor(dir: string, monitorPort: number) {
    this.dir = dir;
    this.monitorPort = monitorPort;
  }

  /** libpq's URL of the formation's nodes, as croupier is given it. */
  url(attrs = 'read-write'): string {
    const hosts = this.nodes.map((node) => `localhost:${node.port}`).join(',');
    return `postgres://postgres@${hosts}/${DATABASE}?target_session_attrs=${attrs}&sslmode=prefer`;
  }

  nodeUrl(node: FormationNode): string {
    return `postgres://postgres@localhost:${node.port}/${DATABASE}?sslmode=disable`;
  }

  /**
   * Monitor, then the first node (it becomes the primary), then two standbys at once. The
   * primary is asked to CHECKPOINT while they join: a standby's base backup waits for one.
   */
  static async create(): Promise<Formation> {
    const dir = mkdtempSync(join(tmpdir(), 'croupier-formation-'));
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
    const formation = new Formation(dir, await freePort());
    try {
      await formation.#startMonitor();
      await formation.#addNode('node1', await freePort());
      await formation.#waitFor((states) => states.some((state) => state.reported === 'single'), 60_000, 'node1 running alone');
      await Promise.all([formation.#addNode('node2', await freePort()), formation.#addNode('node3', await freePort())]);
      await formation.#waitFor(
        (states) =>
          states.length === 3 &&
          states.filter((state) => state.reported === 'primary' && state.assigned === 'primary').length === 1 &&
          states.filter((state) => state.reported === 'secondary' && state.assigned === 'secondary').length === 2,
        120_000,
        'one primary and two secondaries',
        () => formation.#checkpoint(),
      );
      formation.#autoctl(['set', 'formation', 'number-sync-standbys', '1', '--pgdata', join(dir, 'node1')]);
      return formation;
    } catch (error) {
      await formation.destroy();
      throw error;
    }
  }

  #spawn(args: string[], log: string): ChildProcess {
    const [command, argv] = asPostgres([PG_AUTOCTL, ...args]);
    const child = spawn(command, argv, { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    this.#logs.set(child, () => `${log}:\n${output}`);
    return child;
  }

  #autoctl(args: string[]): string {
    const [command, argv] = asPostgres([PG_AUTOCTL, ...args]);
    const result = spawnSync(command, argv, { cwd: this.dir, encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0) throw new Error(`pg_autoctl ${args.join(' ')}: ${result.stderr}${result.stdout}`);
    return result.stdout;
  }

  async #startMonitor(): Promise<void> {
    const pgdata = join(this.dir, 'monitor');
    this.#monitor = this.#spawn(
      [
        'create',
        'monitor',
        '--pgdata',
        pgdata,
        '--pgport',
        String(this.monitorPort),
        '--hostname',
        'localhost',
        '--auth',
        'trust',
        '--ssl-self-signed',
        '--run',
      ],
      'monitor',
    );
    const url = `postgres://postgres@localhost:${this.monitorPort}/pg_auto_failover?sslmode=disable`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => undefined);
      try {
        await client.connect();
        // The extension is made after the server starts accepting connections.
        const ready = await client.query(`select 1 from pg_extension where extname = 'pgautofailover'`);
        if (ready.rowCount === 1) {
          for (const [name, value] of Object.entries(MONITOR_SETTINGS))
            await client.query(`alter system set pgautofailover.${name} = ${value}`);
          await client.query('select pg_reload_conf()');
          return;
        }
      } catch {
        // Not up yet.
      } finally {
        await client.end().catch(() => undefined);
      }
      if (Date.now() > deadline) throw new Error(`the monitor did not start\n${this.logs()}`);
      await sleep(250);
    }
  }

  async #addNode(name: string, port: number): Promise<void> {
    const pgdata = join(this.dir, name);
    const monitor = `postgres://autoctl_node@localhost:${this.monitorPort}/pg_auto_failover?sslmode=require`;
    const child = this.#spawn(
      [
        'create',
        'postgres',
        '--pgdata',
        pgdata,
        '--pgport',
        String(port),
        '--hostname',
        'localhost',
        '--name',
        name,
        '--monitor',
        monitor,
        '--auth',
        'trust',
        '--ssl-self-signed',
        '--dbname',
        DATABASE,
        '--run',
      ],
      name,
    );
    this.nodes.push({ name, port, pgdata, process: child });
  }

  async #checkpoint(): Promise<void> {
    const primary = this.nodes[0]!;
    const client = new pg.Client({ connectionString: this.nodeUrl(primary) });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('checkpoint');
    } catch {
      // Not up yet.
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** The monitor's view: each node's reported and assigned state. */
  states(): NodeState[] {
    let json: string;
    try {
      json = this.#autoctl(['show', 'state', '--pgdata', join(this.dir, 'monitor'), '--json']);
    } catch {
      return [];
    }
    const rows = JSON.parse(json === '' ? '[]' : json) as {
      nodename: string;
      nodeport: number;
      current_group_state: string;
      assigned_group_state: string;
    }[];
    return rows.map((row) => ({
      name: row.nodename,
      port: row.nodeport,
      reported: row.current_group_state,
      assigned: row.assigned_group_state,
    }));
  }

  async #waitFor(done: (states: NodeState[]) => boolean, ms: number, what: string, meanwhile?: () => Promise<void>): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      await meanwhile?.();
      const states = this.states();
      if (done(states)) return;
      if (Date.now() > deadline) throw new Error(`formation: not ${what} within ${ms / 1000} s: ${JSON.stringify(states)}\n${this.logs()}`);
      await sleep(500);
    }
  }

  /** Waits until the monitor sees a primary and `secondaries` standbys, every node at its goal. */
  waitHealthy(secondaries: number, ms = 90_000): Promise<void> {
    return this.#waitFor(
      (states) =>
        states.filter((state) => state.reported === 'primary' && state.assigned === 'primary').length === 1 &&
        states.filter((state) => state.reported === 'secondary' && state.assigned === 'secondary').length === secondaries,
      ms,
      `a primary and ${secondaries} secondaries`,
      () => this.#checkpoint(),
    );
  }

  /** The node PostgreSQL itself says is writable now (not in recovery), asked directly. */
  async writableNode(): Promise<FormationNode | undefined> {
    for (const node of this.nodes) {
      const client = new pg.Client({ connectionString: this.nodeUrl(node), connectionTimeoutMillis: 1000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const { rows } = await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby');
        if (rows[0]?.standby === false) return node;
      } catch {
        // Down, or starting.
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    return undefined;
  }

  /**
   * The moment the formation takes writes again: a commit on the node that is out of recovery
   * returns, which on a new primary waits for a standby to follow it (synchronous replication).
   */
  async acceptsWrites(node: FormationNode): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.nodeUrl(node), connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('create table if not exists formation_probe (at timestamptz not null)');
      await client.query('insert into formation_probe values (now())');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** `pg_autoctl perform switchover`: the primary steps down for a standby; returns when done. */
  switchover(): Promise<void> {
    const child = this.#spawn(['perform', 'switchover', '--pgdata', join(this.dir, 'monitor')], 'switchover');
    return new Promise((resolve, reject) => {
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`switchover exited ${code}\n${this.logs()}`))));
    });
  }

  /**
   * The loss of a node's machine: SIGKILL to its pg_autoctl and every process below it, the
   * postmaster included (killing the postmaster alone only makes pg_autoctl restart it).
   */
  killNode(node: FormationNode): void {
    const root = node.process.pid!;
    for (const pid of [root, ...descendants(root)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  }

  logs(): string {
    return [...this.#logs.values()]
      .map((log) => log())
      .join('\n')
      .slice(-10_000);
  }

  /** Stops every node, then the monitor (immediate shutdowns), then removes the directory. */
  async destroy(): Promise<void> {
    for (const pgdata of [...this.nodes.map((node) => node.pgdata), join(this.dir, 'monitor')]) {
      try {
        this.#autoctl(['stop', '--pgdata', pgdata, '--immediate']);
      } catch {
        // Killed by the test, or never started.
      }
    }
    const children = [...this.nodes.map((node) => node.process), ...(this.#monitor === undefined ? [] : [this.#monitor])];
    const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
    for (let waited = 0; waited < 10_000 && children.some(running); waited += 100) await sleep(100);
    for (const child of children.filter(running)) {
      for (const pid of [child.pid!, ...descendants(child.pid!)].reverse()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
