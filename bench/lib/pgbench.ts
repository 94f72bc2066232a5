// What the database benches share: pgbench on the same server as the reference figure, and the
// CPU the bench database's backends spend (a figure that hardly moves when other work shares the
// machine, unlike a rate).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { DEFAULT_SERVER_URL } from './database.ts';

/**
 * CPU time (ms) so far of each backend connected to the bench database, from /proc (PostgreSQL
 * runs on this host): unlike a rate, it hardly moves when other work shares the machine.
 */
export async function databaseCpu(client: pg.Client): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database()');
  const ticks = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      // Fields 14 and 15 (after the parenthesised name): user and system time in 1/100 s.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // Not Linux, or the backend just ended: it counts as nothing.
    }
  }
  return ticks;
}

export function cpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/**
 * Initialises `pgbench` on its own database of the same server, and returns a function that
 * runs `-b tpcb-like` once and answers its tps (without initial connection time).
 */
export function pgbenchRunner(clients: number, scale: number, seconds: number): () => number {
  const server = new URL(DEFAULT_SERVER_URL);
  const common = ['-h', server.hostname, '-p', server.port || '5432', '-U', decodeURIComponent(server.username || 'postgres')];
  const step = (command: string, args: string[]): string => {
    const result = spawnSync(command, args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  };
  step('dropdb', [...common, '--if-exists', '--force', 'croupier_pgbench']);
  step('createdb', [...common, 'croupier_pgbench']);
  step('pgbench', [...common, '-i', '-q', '-s', String(scale), 'croupier_pgbench']);
  return () => {
    const args = ['-b', 'tpcb-like', '-c', String(clients), '-j', String(Math.min(clients, 2)), '-T', String(seconds), 'croupier_pgbench'];
    const output = step('pgbench', [...common, ...args]);
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(output);
    if (tps === null) throw new Error(`Unexpected pgbench output:\n${output}`);
    return Number(tps[1]);
  };
}
