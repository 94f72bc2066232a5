// `npx node bench/startup.ts`: what `npm start` costs on the embedded database: time from spawn to
// the first 200 of /health, then the server's resident memory once it settles, on a fresh DATA_DIR
// and again on the same DATA_DIR (issue 35: a fresh DATA_DIR within 2 s and 2.5 s of CPU, a
// restart within 1.5 s, the peak RSS at or under 400 MB).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { positiveCounts } from './lib/rounds.ts';
import { NODE_FLAGS } from '../bin/node-flags.js';

const BIN = join(import.meta.dirname, '../bin/croupier.js');
const TARGET = {
  fresh: { ms: 2000, cpu: 2.5 },
  again: { ms: 1500, cpu: 2.5 },
};
const TARGET_MB = 400;

const { values } = parseArgs({
  options: {
    settle: { type: 'string', default: '20' },
    starts: { type: 'string', default: '2' },
  },
});
const count = positiveCounts(values);
const settleSeconds = count('settle');
const starts = count('starts');

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Resident memory of `pid` in MB, from /proc (Linux). */
function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line === null ? 0 : Number(line[1]) / 1024;
}

/** CPU seconds (user + system) `pid` has used: unlike wall time, it hardly moves when the machine is busy. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Start {
  healthMs: number;
  healthCpu: number;
  /** RSS every five seconds after /health answered. */
  timeline: number[];
  peakMb: number;
  settledMb: number;
}

async function start(dataDir: string): Promise<Start> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, BIN, 'serve'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = once(child, 'exit');
  let peakMb = 0;
  const sample = () => {
    try {
      peakMb = Math.max(peakMb, rssMb(child.pid!));
    } catch {
      // The process is gone; the health loop reports it.
    }
  };
  try {
    let healthMs: number | undefined;
    let healthCpu = 0;
    while (healthMs === undefined) {
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode} before answering /health`);
      if (performance.now() - started > 180_000) throw new Error('serve did not answer /health in 180 s');
      sample();
      try {
        const response = await fetch(`http://127.0.0.1:${port}/health`);
        if (response.ok) {
          healthMs = performance.now() - started;
          healthCpu = cpuSeconds(child.pid!);
        }
      } catch {
        await sleep(20);
      }
    }
    // Settled: what the idle process holds once start-up garbage is collected or returned.
    let settledMb = 0;
    const timeline: number[] = [];
    for (let elapsed = 250; elapsed <= settleSeconds * 1000; elapsed += 250) {
      await sleep(250);
      sample();
      settledMb = rssMb(child.pid!);
      if (elapsed % 5000 === 0) timeline.push(settledMb);
    }
    return { healthMs, healthCpu, timeline, peakMb, settledMb };
  } finally {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'croupier-startup-'));
let missed = false;
try {
  console.log(`npm start on the embedded database (${process.version}), RSS settled after ${settleSeconds} s`);
  for (let i = 1; i <= starts; i++) {
    const result = await start(dataDir);
    const target = i === 1 ? TARGET.fresh : TARGET.again;
    const met = result.healthMs <= target.ms && result.healthCpu <= target.cpu && result.peakMb <= TARGET_MB;
    missed ||= !met;
    console.log(
      `${i === 1 ? 'fresh DATA_DIR ' : 'same DATA_DIR  '} /health after ${(result.healthMs / 1000).toFixed(2)} s ` +
        `(${result.healthCpu.toFixed(2)} s of CPU), RSS peak ${result.peakMb.toFixed(0)} MB, settled ${result.settledMb.toFixed(0)} MB` +
        ` (every 5 s: ${result.timeline.map((mb) => mb.toFixed(0)).join(' ')})` +
        ` (target ≤ ${target.ms / 1000} s, ≤ ${target.cpu} s of CPU, peak ≤ ${TARGET_MB} MB: ${met ? 'met' : 'MISSED'})`,
    );
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(missed ? 1 : 0);
