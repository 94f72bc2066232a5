import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { scratch } from '../helpers/cli.ts';
import { isDatabaseUnavailable } from '../../src/platform/db/client.ts';
import { ConnectionUrlError, describeHosts, isPlainUrl, parseConnectionUrl } from '../../src/platform/db/conninfo.ts';

const KEY = Buffer.alloc(32, 3).toString('base64');
const FORMATION =
  'postgres://app:s%40cret@h1:5432,h2:5433,[::1]:5434/croupier?target_session_attrs=read-write&sslmode=prefer&application_name=x';

describe('libpq connection URLs with several hosts (contract section 19)', () => {
  const { dataDir } = scratch('croupier-conninfo-');
  test('every host becomes a one-host URL node-postgres reads, credentials and other parameters kept', () => {
    const info = parseConnectionUrl(FORMATION);
    assert.deepEqual(
      info.hosts.map(({ host, port }) => `${host}|${port}`),
      ['h1|5432', 'h2|5433', '::1|5434'],
    );
    assert.deepEqual(
      info.hosts.map(({ url }) => url),
      [
        'postgres://app:s%40cret@h1:5432/croupier?application_name=x',
        'postgres://app:s%40cret@h2:5433/croupier?application_name=x',
        'postgres://app:s%40cret@[::1]:5434/croupier?application_name=x',
      ],
    );
    assert.equal(info.targetSessionAttrs, 'read-write');
    assert.equal(info.database, 'croupier');
    assert.equal(isPlainUrl(info), false);
  });

  test('sslmode=prefer tries TLS then plain, allow the reverse; other modes are left to node-postgres', () => {
    assert.deepEqual(parseConnectionUrl('postgres://h/db?sslmode=prefer').tls, ['tls', 'plain']);
    assert.deepEqual(parseConnectionUrl('postgres://h/db?sslmode=allow').tls, ['plain', 'tls']);
    const required = parseConnectionUrl('postgres://h/db?sslmode=require');
    assert.deepEqual(required.tls, ['as-url']);
    assert.equal(required.hosts[0]!.url, 'postgres://h/db?sslmode=require');
  });

  test('hosts and ports as host= and port= parameters, a lone port for every host, default 5432', () => {
    const info = parseConnectionUrl('postgresql://u@/db?host=a,b&port=6000');
    assert.deepEqual(
      info.hosts.map(({ host, port }) => `${host}:${port}`),
      ['a:6000', 'b:6000'],
    );
    assert.deepEqual(
      parseConnectionUrl('postgres://u@a,b:7/db').hosts.map(({ port }) => port),
      [5432, 7],
    );
  });

  test('a plain one-host URL stays node-postgres’ own', () => {
    assert.equal(isPlainUrl(parseConnectionUrl('postgres://u:p@db:5432/app')), true);
    assert.equal(isPlainUrl(parseConnectionUrl('postgres://u:p@db:5432/app?target_session_attrs=read-write')), false);
  });

  test('a log line names the hosts without credentials', () => {
    assert.equal(describeHosts(FORMATION), 'h1:5432,h2:5433,[::1]:5434/croupier');
  });

  test('bad URLs are refused with the reason', () => {
    for (const raw of [
      'mysql://h/db',
      'not a url',
      'postgres://h:99999/db',
      'postgres://h:x/db',
      'postgres://h/db?target_session_attrs=writable',
      'postgres://a,b/db?port=1,2,3',
    ]) {
      assert.throws(() => parseConnectionUrl(raw), ConnectionUrlError, raw);
    }
  });

  test('config accepts a formation URL for DATABASE_URL and DATABASE_DIRECT_URL', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), APP_KEY: KEY, DATABASE_URL: FORMATION, DATABASE_DIRECT_URL: FORMATION });
    assert.equal(config.databaseUrl, FORMATION);
    assert.equal(config.databaseDirectUrl, FORMATION);
    assert.throws(
      () => loadConfig({ DATA_DIR: dataDir(), APP_KEY: KEY, DATABASE_URL: 'postgres://h1:5432,h2:x/db' }),
      /Invalid DATABASE_URL/,
    );
    assert.throws(
      () => loadConfig({ DATA_DIR: dataDir(), APP_KEY: KEY, DATABASE_URL: 'postgres://app:hunter2@h1,h2:x/db' }),
      (error: Error) => /Invalid DATABASE_URL/.test(error.message) && !error.message.includes('hunter2'),
      'the refused URL is shown without its password',
    );
  });

  test('a read-only transaction (a primary demoted under the session) and every 57P0x are the database unavailable: a 503', () => {
    for (const code of ['25006', '57P01', '57P02', '57P03', '57P04', '57P05', '08006', '08001']) {
      assert.equal(isDatabaseUnavailable({ code, message: 'x' }), true, code);
    }
    assert.equal(isDatabaseUnavailable({ code: '23505', message: 'duplicate' }), false);
  });
});
