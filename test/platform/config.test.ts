import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { scratch } from '../helpers/cli.ts';
import { NODE_FLAGS } from '../../bin/node-flags.js';

const KEY = Buffer.alloc(32, 3).toString('base64');

describe('configuration', () => {
  const { dataDir } = scratch('croupier-config-');
  const base = () => ({ DATA_DIR: dataDir(), APP_KEY: KEY });

  /** Asserts that `env` stops the start with one line naming `variable`. */
  function rejects(env: Record<string, string>, variable: string): void {
    assert.throws(
      () => loadConfig({ ...base(), ...env }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error));
        assert.ok(error.message.includes(variable), error.message);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      },
    );
  }

  test('the defaults of docs/api.md section 11', () => {
    const config = loadConfig(base());
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8000);
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.appUrl, 'http://localhost:8000');
    assert.equal(config.frontendUrl, 'http://localhost:5173');
    assert.deepEqual(config.corsOrigins, ['http://localhost:5173']);
    assert.equal(config.sessionCookie, 'gp_session');
    assert.equal(config.sessionDomain, undefined);
    assert.equal(config.sessionLifetimeMin, 120);
    assert.equal(config.passwordTimeoutS, 10800);
    assert.equal(config.mailFrom, 'no-reply@localhost');
    assert.equal(config.logLevel, 'info');
    assert.equal(config.defaultCurrency, 'BRL');
    assert.equal(config.uploadMaxBytes, 5242880);
    assert.deepEqual(config.trustedProxies, []);
    assert.equal(config.secureCookies, false);
  });

  test('values are read and https APP_URL turns on Secure cookies', () => {
    const config = loadConfig({
      ...base(),
      HOST: '0.0.0.0',
      PORT: '9000',
      DATABASE_URL: 'postgres://u:p@db:5432/app',
      APP_URL: 'https://api.example.com/',
      CORS_ORIGINS: 'https://a.example.com, https://b.example.com/',
      SESSION_LIFETIME_MIN: '5',
      PASSWORD_TIMEOUT_S: '60',
      TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1',
    });
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.port, 9000);
    assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/app');
    assert.equal(config.appUrl, 'https://api.example.com');
    assert.deepEqual(config.corsOrigins, ['https://a.example.com', 'https://b.example.com']);
    assert.equal(config.sessionLifetimeMin, 5);
    assert.equal(config.passwordTimeoutS, 60);
    assert.deepEqual(config.trustedProxies, ['10.0.0.0/8', '127.0.0.1']);
    assert.equal(config.secureCookies, true);
  });

  test('unset, APP_URL follows PORT, and HOST when HOST is neither a loopback nor a wildcard address', () => {
    const appUrl = (env: Record<string, string>) => loadConfig({ ...base(), ...env }).appUrl;
    assert.equal(appUrl({ PORT: '23817' }), 'http://localhost:23817');
    for (const host of ['127.0.0.1', '127.0.1.1', 'localhost', '::1', '0.0.0.0', '::']) {
      assert.equal(appUrl({ HOST: host, PORT: '9000' }), 'http://localhost:9000', host);
    }
    assert.equal(appUrl({ HOST: '192.168.1.20', PORT: '9000' }), 'http://192.168.1.20:9000');
    assert.equal(appUrl({ HOST: 'fd00::20', PORT: '9000' }), 'http://[fd00::20]:9000');
    assert.equal(appUrl({ HOST: 'api.internal', PORT: '9000' }), 'http://api.internal:9000');
    assert.equal(loadConfig({ ...base(), PORT: '9000' }).appUrlSet, false);
    const set = loadConfig({ ...base(), PORT: '9000', APP_URL: 'https://casino.example.com' });
    assert.equal(set.appUrl, 'https://casino.example.com');
    assert.equal(set.appUrlSet, true);
  });

  test('an invalid value stops the start with one line naming the variable', () => {
    rejects({ PORT: 'abc' }, 'PORT');
    rejects({ PORT: '70000' }, 'PORT');
    rejects({ PORT: '-1' }, 'PORT');
    rejects({ DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL');
    rejects({ DATABASE_URL: 'not a url' }, 'DATABASE_URL');
    rejects({ APP_KEY: 'too-short' }, 'APP_KEY');
    rejects({ APP_KEY: Buffer.alloc(16).toString('base64') }, 'APP_KEY');
    rejects({ APP_URL: 'ftp://x' }, 'APP_URL');
    rejects({ FRONTEND_URL: 'localhost:5173' }, 'FRONTEND_URL');
    rejects({ CORS_ORIGINS: 'http://ok.example, nope' }, 'CORS_ORIGINS');
    rejects({ MAIL_URL: 'http://mail' }, 'MAIL_URL');
    rejects({ REDIS_URL: 'http://redis' }, 'REDIS_URL');
    rejects({ SESSION_LIFETIME_MIN: '0' }, 'SESSION_LIFETIME_MIN');
    rejects({ SESSION_LIFETIME_MIN: '1.5' }, 'SESSION_LIFETIME_MIN');
    rejects({ PASSWORD_TIMEOUT_S: 'soon' }, 'PASSWORD_TIMEOUT_S');
    rejects({ UPLOAD_MAX_BYTES: '0' }, 'UPLOAD_MAX_BYTES');
    rejects({ LOG_LEVEL: 'loud' }, 'LOG_LEVEL');
    rejects({ TRUSTED_PROXIES: 'proxy.local' }, 'TRUSTED_PROXIES');
    rejects({ TRUSTED_PROXIES: '10.0.0.0/33' }, 'TRUSTED_PROXIES');
    rejects({ SESSION_COOKIE: 'bad name' }, 'SESSION_COOKIE');
    rejects({ SESSION_DOMAIN: 'bad domain' }, 'SESSION_DOMAIN');
    rejects({ DEFAULT_CURRENCY: 'real' }, 'DEFAULT_CURRENCY');
    rejects({ MAIL_FROM: 'nobody' }, 'MAIL_FROM');
    rejects({ LOG_FORMAT: 'xml' }, 'LOG_FORMAT');
    rejects({ METRICS_ENABLED: 'yes' }, 'METRICS_ENABLED');
    rejects({ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN');
    rejects({ METRICS_TOKEN: 'a token with spaces in it' }, 'METRICS_TOKEN');
  });

  test('metrics are off by default, on with a token (which is required then) or METRICS_ENABLED=on, and off wins', () => {
    const token = 'a-metrics-token-0123456789';
    assert.deepEqual(loadConfig(base()).metrics, { enabled: false, token: undefined });
    assert.deepEqual(loadConfig({ ...base(), METRICS_TOKEN: token }).metrics, { enabled: true, token });
    assert.deepEqual(loadConfig({ ...base(), METRICS_ENABLED: 'on' }).metrics, { enabled: true, token: undefined });
    assert.deepEqual(loadConfig({ ...base(), METRICS_ENABLED: 'off', METRICS_TOKEN: token }).metrics, { enabled: false, token });
  });

  test('a too short METRICS_TOKEN is refused without echoing it', () => {
    const token = 'short-secret';
    assert.throws(
      () => loadConfig({ ...base(), METRICS_TOKEN: token }),
      (error: unknown) => error instanceof ConfigError && !error.message.includes(token),
    );
  });

  test('an invalid APP_KEY is not echoed whole in the error', () => {
    const key = 'secret-looking-but-invalid-key-value';
    try {
      loadConfig({ ...base(), APP_KEY: key });
      assert.fail('should throw');
    } catch (error) {
      assert.ok(!(error as Error).message.includes(key));
    }
  });

  test('a missing APP_KEY is generated into DATA_DIR/app.key once and reused', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir });
    const file = join(dir, 'app.key');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(readFileSync(file, 'utf8').trim(), /^base64:[A-Za-z0-9+/]{43}=$/);
    assert.equal(first.appKey.length, 32);
    assert.deepEqual(loadConfig({ DATA_DIR: dir }).appKey, first.appKey);
    // Laravel's "base64:" prefix is accepted in the variable too.
    assert.deepEqual(loadConfig({ DATA_DIR: dir, APP_KEY: `base64:${KEY}` }).appKey, Buffer.from(KEY, 'base64'));
  });

  test('the CLI stops with exactly one line on stderr naming the bad variable', () => {
    const result = spawnSync(process.execPath, [...NODE_FLAGS, 'bin/croupier.js', 'migrate'], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir(), PORT: 'eighty' },
      encoding: 'utf8',
    });
    assert.equal(result.status, 1);
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, result.stderr);
    assert.match(lines[0]!, /PORT/);
    assert.equal(result.stdout, '');
  });
  test('behind a pooler: a direct URL of its own turns named prepared statements off unless they are turned on', () => {
    const pooler = 'postgres://u:p@pgbouncer:6432/app';
    const direct = 'postgres://u:p@db:5432/app';
    const alone = loadConfig({ ...base(), DATABASE_URL: direct });
    assert.equal(alone.databaseDirectUrl, direct);
    assert.equal(alone.databasePreparedStatements, true);
    assert.equal(alone.databasePoolSize, 10);
    const behind = loadConfig({ ...base(), DATABASE_URL: pooler, DATABASE_DIRECT_URL: direct, DATABASE_POOL_SIZE: '20' });
    assert.equal(behind.databaseUrl, pooler);
    assert.equal(behind.databaseDirectUrl, direct);
    assert.equal(behind.databasePreparedStatements, false);
    assert.equal(behind.databasePoolSize, 20);
    // PgBouncer 1.21 or newer with max_prepared_statements keeps them.
    const kept = loadConfig({ ...base(), DATABASE_URL: pooler, DATABASE_DIRECT_URL: direct, DATABASE_PREPARED_STATEMENTS: 'on' });
    assert.equal(kept.databasePreparedStatements, true);
    assert.equal(loadConfig({ ...base(), DATABASE_URL: direct, DATABASE_PREPARED_STATEMENTS: 'off' }).databasePreparedStatements, false);
    assert.equal(loadConfig(base()).databaseDirectUrl, undefined);
    rejects({ DATABASE_DIRECT_URL: direct }, 'DATABASE_DIRECT_URL');
    rejects({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: 'mysql://db/app' }, 'DATABASE_DIRECT_URL');
    rejects({ DATABASE_URL: pooler, DATABASE_PREPARED_STATEMENTS: 'yes' }, 'DATABASE_PREPARED_STATEMENTS');
    rejects({ DATABASE_URL: pooler, DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE');
  });
});
