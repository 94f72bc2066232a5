/**
 * libpq's connection URLs, several hosts included (`postgres://u@h1:5432,h2:5432/db?
 * target_session_attrs=read-write`), which node-postgres cannot read: its parser takes one host
 * (brianc/node-postgres#1470). Each host becomes a one-host URL node-postgres reads as before,
 * and the parameters libpq reads for the choice of host (`target_session_attrs`, `sslmode`
 * prefer and allow, `connect_timeout`) are kept here, out of node-postgres' hands.
 */

/** libpq's `target_session_attrs`: which of the hosts a session may stay on. */
export type SessionAttrs = 'any' | 'read-write' | 'read-only' | 'primary' | 'standby' | 'prefer-standby';
const SESSION_ATTRS: readonly SessionAttrs[] = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'];

/** One way to reach a host: TLS (unverified, as libpq's prefer and allow) or not, or as the URL says. */
export type TlsAttempt = 'tls' | 'plain' | 'as-url';

export interface HostTarget {
  host: string;
  port: number;
  /** A URL node-postgres reads: this host alone, without the parameters kept here. */
  url: string;
}

export interface ConnectionInfo {
  hosts: HostTarget[];
  targetSessionAttrs: SessionAttrs;
  /** The attempts on each host, in order: libpq's prefer tries TLS then plain, allow the reverse. */
  tls: TlsAttempt[];
  /** libpq's connect_timeout (seconds), per host; undefined when the URL sets none. */
  connectTimeoutS: number | undefined;
  database: string;
}

export class ConnectionUrlError extends Error {}

const SCHEME = /^(postgres(?:ql)?):\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/;

/**
 * Reads a libpq URL. Hosts come from the authority (comma-separated, `[v6]` in brackets) or from
 * `host=` / `port=` parameters as libpq allows; a port list of one applies to every host.
 */
export function parseConnectionUrl(raw: string): ConnectionInfo {
  const match = SCHEME.exec(raw.trim());
  if (match === null) throw new ConnectionUrlError('a postgres:// or postgresql:// URL');
  const [, scheme, authority = '', path = '', query = ''] = match;
  const at = authority.lastIndexOf('@');
  const credentials = at < 0 ? '' : authority.slice(0, at);
  const hostList = at < 0 ? authority : authority.slice(at + 1);
  const params = new URLSearchParams(query);
  let hosts = hostList === '' ? [] : hostList.split(',').map(splitHostPort);
  const hostParam = params.get('host');
  const portParam = params.get('port');
  if (hostParam !== null) {
    if (hosts.some((entry) => entry.host !== '')) throw new ConnectionUrlError('hosts in the URL or in host=, not both');
    hosts = hostParam.split(',').map((host) => ({ host, port: undefined }));
  }
  if (portParam !== null) {
    const ports = portParam.split(',');
    if (ports.length !== 1 && ports.length !== Math.max(hosts.length, 1)) throw new ConnectionUrlError('one port, or one per host');
    if (hosts.length === 0) hosts = [{ host: '', port: undefined }];
    hosts = hosts.map((entry, index) => ({ host: entry.host, port: entry.port ?? (ports[ports.length === 1 ? 0 : index] || undefined) }));
  }
  if (hosts.length === 0) hosts = [{ host: '', port: undefined }];
  const attrs = (params.get('target_session_attrs') ?? 'any') as SessionAttrs;
  if (!SESSION_ATTRS.includes(attrs)) throw new ConnectionUrlError(`target_session_attrs one of ${SESSION_ATTRS.join(', ')}`);
  const sslmode = params.get('sslmode');
  const tls: TlsAttempt[] = sslmode === 'prefer' ? ['tls', 'plain'] : sslmode === 'allow' ? ['plain', 'tls'] : ['as-url'];
  const timeout = params.get('connect_timeout');
  if (timeout !== null && !/^\d+$/.test(timeout)) throw new ConnectionUrlError('connect_timeout a whole number of seconds');
  // Left to node-postgres: everything it reads itself, with sslmode unless prefer or allow, which it reads differently (it verifies).
  const passed = new URLSearchParams(query);
  for (const name of ['host', 'port', 'target_session_attrs', 'connect_timeout']) passed.delete(name);
  if (tls[0] !== 'as-url') passed.delete('sslmode');
  const rest = passed.size === 0 ? '' : `?${passed.toString()}`;
  let database = path.replace(/^\//, '');
  try {
    database = decodeURIComponent(database);
  } catch {
    throw new ConnectionUrlError('a database name in valid percent-encoding');
  }
  const userInfo = credentials === '' ? '' : `${credentials}@`;
  return {
    hosts: hosts.map(({ host, port }) => {
      const number = port === undefined ? 5432 : Number(port);
      if (!Number.isInteger(number) || number < 1 || number > 65535 || (port !== undefined && !/^\d+$/.test(port))) {
        throw new ConnectionUrlError(`a port from 1 to 65535 (not ${port})`);
      }
      // A socket directory (host=/run/postgresql) goes as node-postgres' own host parameter.
      const single = host.startsWith('/')
        ? `${scheme}://${userInfo}${path === '' ? '/' : path}?${withParam(rest, 'host', host)}${port === undefined ? '' : `&port=${number}`}`
        : `${scheme}://${userInfo}${bracketed(host)}${port === undefined ? '' : `:${number}`}${path}${rest}`;
      return { host: host === '' ? 'localhost' : host, port: number, url: single };
    }),
    targetSessionAttrs: attrs,
    tls,
    connectTimeoutS: timeout === null ? undefined : Number(timeout),
    database,
  };
}

/** Whether node-postgres can take `raw` as it is: one host, any session, and TLS as it reads it. */
export function isPlainUrl(info: ConnectionInfo): boolean {
  return info.hosts.length === 1 && info.targetSessionAttrs === 'any' && info.tls[0] === 'as-url' && info.connectTimeoutS === undefined;
}

/** The hosts of a URL without its credentials, for a log line: `h1:5432,h2:5432/db`. */
export function describeHosts(raw: string): string {
  const info = parseConnectionUrl(raw);
  const hosts = info.hosts.map((target) => `${bracketed(target.host)}:${target.port}`).join(',');
  return `${hosts}${info.database === '' ? '' : `/${info.database}`}`;
}

function splitHostPort(entry: string): { host: string; port: string | undefined } {
  const v6 = /^\[([^\]]*)\](?::(.*))?$/.exec(entry);
  if (v6 !== null) return { host: v6[1]!, port: v6[2] === '' ? undefined : v6[2] };
  const colon = entry.lastIndexOf(':');
  if (colon < 0) return { host: decode(entry), port: undefined };
  const port = entry.slice(colon + 1);
  return { host: decode(entry.slice(0, colon)), port: port === '' ? undefined : port };
}

function decode(host: string): string {
  try {
    return decodeURIComponent(host);
  } catch {
    throw new ConnectionUrlError('hosts in valid percent-encoding');
  }
}

function bracketed(host: string): string {
  return host.includes(':') ? `[${host}]` : encodeURIComponent(host).replace(/%2F/gi, '/');
}

function withParam(rest: string, name: string, value: string): string {
  const params = new URLSearchParams(rest);
  params.set(name, value);
  return params.toString();
}
