import type { LoadResult } from './load.ts';

export interface Baseline {
  /** Column heading, e.g. `vs bare`. */
  title: string;
  result: LoadResult;
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
}

/** The results as a plain-text table with each route's req/s as a share of each baseline's. */
export function formatTable(results: LoadResult[], baselines: Baseline[] = []): string {
  const cpu = results.some((result) => result.cpuPerRequest !== undefined);
  const header = [
    'route',
    'req/s',
    'p50 ms',
    'p99 ms',
    ...baselines.map((baseline) => baseline.title),
    ...(cpu ? ['server CPU µs/req'] : []),
    'failures',
  ];
  const rows = results.map((result) => [
    result.label,
    result.rps.toFixed(0),
    result.p50.toFixed(1),
    result.p99.toFixed(1),
    ...baselines.map((baseline) => `${((result.rps / baseline.result.rps) * 100).toFixed(1)}%`),
    ...(cpu ? [result.cpuPerRequest === undefined ? '-' : result.cpuPerRequest.toFixed(0)] : []),
    String(result.failures),
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i]!.length)));
  return [pad(header, widths), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map((row) => pad(row, widths))].join('\n');
}
