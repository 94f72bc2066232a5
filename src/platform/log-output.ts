import pretty from 'pino-pretty';
import type { Config } from '../config.ts';

interface RequestLine {
  msg?: unknown;
  req?: { method?: unknown; url?: unknown };
  res?: { statusCode?: unknown };
  responseTime?: unknown;
}

/** Nothing of a request may move the cursor or colour a terminal. */
const CONTROL = /\p{Cc}/gu;

/**
 * A request's two lines, each on one line: `incoming request GET /path` and `request completed
 * 200 in 3.1 ms`. pino-pretty would otherwise spread Fastify's `req` and `res` objects over
 * about sixteen lines a request.
 */
export function prettyMessage(log: RequestLine): string {
  const msg = typeof log.msg === 'string' ? log.msg : '';
  if (log.req !== undefined) return `${msg} ${String(log.req.method)} ${String(log.req.url)}`.replace(CONTROL, '?');
  if (log.res !== undefined && typeof log.responseTime === 'number') {
    return `${msg} ${String(log.res.statusCode)} in ${log.responseTime.toFixed(1)} ms`;
  }
  return msg.replace(CONTROL, '?');
}

/**
 * Where log lines go: JSON (one object a line, for a log shipper) or pino-pretty's human lines.
 * Unset LOG_FORMAT means pretty on a terminal and JSON anywhere else (a container, a pipe, a
 * file), so nobody ships coloured text by accident. Pretty formats in this process: it is for
 * a person reading a terminal, not for throughput. Pretty keeps each line on one line (an
 * error's stack excepted), its other fields as JSON after the message; the start line's fields,
 * already in its message, are left out.
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
    singleLine: true,
    messageFormat: (log) => prettyMessage(log),
    ignore: 'pid,hostname,req,res,responseTime,startup',
  });
}
