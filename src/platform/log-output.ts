import pretty from 'pino-pretty';
import type { Config } from '../config.ts';

/**
 * Where log lines go: JSON (one object a line, for a log shipper) or pino-pretty's human lines.
 * Unset LOG_FORMAT means pretty on a terminal and JSON anywhere else (a container, a pipe, a
 * file), so nobody ships coloured text by accident. Pretty formats in this process: it is for
 * a person reading a terminal, not for throughput.
 */
export function logDestination(
  format: Config['logFormat'],
  stream: NodeJS.WritableStream | undefined,
  isTerminal: boolean,
): NodeJS.WritableStream | undefined {
  const usePretty = format === 'pretty' || (format === undefined && stream === undefined && isTerminal);
  if (!usePretty) return stream;
  return pretty({
    destination: stream ?? 1,
    colorize: stream === undefined && isTerminal,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
}
