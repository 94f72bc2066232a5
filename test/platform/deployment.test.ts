import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'yaml';

/**
 * The container files are written for an engine this machine does not run: these checks read
 * them as text and YAML, so a change that breaks what docs/production.md promises (shared
 * secrets, the proxy being the only trusted one, Node 24, a non-root user) fails here, and
 * `docker-compose config` validates the file when that tool is installed.
 */
const root = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, { ipv4_address?: string } | null> | string[];
  volumes?: string[];
  command?: string[];
  stop_grace_period?: string;
  configs?: { source: string; target: string }[];
}

const compose = parse(read('compose.yaml'), { merge: true }) as {
  services: Record<string, Service>;
  configs?: Record<string, { content?: string }>;
};
/** Compose's duration syntax (`45s`, `1m30s`) in seconds. */
function seconds(duration: string): number {
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+)(h|m|s)/g))
    total += Number(amount) * { h: 3600, m: 60, s: 1 }[unit as 'h' | 'm' | 's'];
  return total;
}
const instances = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);
/** Every variable src/config.ts reads. */
const known = new Set([...read('src/config.ts').matchAll(/\(env, '([A-Z_]+)'/g)].map((match) => match[1]));

describe('compose.yaml', () => {
  test('runs two croupier instances that share the key, the secrets, PostgreSQL, Redis and DATA_DIR', () => {
    assert.equal(instances.length, 2);
    const [first, second] = instances.map(([, service]) => service);
    for (const name of ['APP_KEY', 'PAYMENT_SANDBOX_SECRET', 'PIX_KEY', 'DATABASE_URL', 'REDIS_URL', 'TRUSTED_PROXIES']) {
      assert.ok(first!.environment?.[name], `${name} is set`);
      assert.equal(first!.environment?.[name], second!.environment?.[name], `${name} is the same on both`);
    }
    assert.match(first!.environment!.DATABASE_URL!, /@postgres:5432\//);
    assert.match(first!.environment!.REDIS_URL!, /^redis:\/\/redis:6379/);
    assert.deepEqual(first!.volumes, second!.volumes);
    assert.ok(
      first!.volumes?.some((volume) => volume.endsWith(':/data')),
      'DATA_DIR (/data) is a shared volume',
    );
  });

  test('every variable given to an instance is one the configuration reads', () => {
    for (const [name, service] of instances) {
      for (const variable of Object.keys(service.environment ?? {})) {
        assert.ok(known.has(variable), `${name}: ${variable} is not read by src/config.ts`);
      }
    }
  });

  test('the instances trust exactly the proxy, which forwards to both', () => {
    const proxy = compose.services.proxy!;
    const networks = proxy.networks as Record<string, { ipv4_address?: string }>;
    const address = Object.values(networks)[0]?.ipv4_address;
    assert.ok(address !== undefined);
    for (const [name, service] of instances) {
      assert.equal(service.environment?.TRUSTED_PROXIES, address);
      assert.ok(proxy.command?.includes(`${name}:8000`), `the proxy forwards to ${name}`);
    }
  });

  test('PostgreSQL and Redis have healthchecks the instances wait for, and the proxy waits for healthy instances', () => {
    for (const name of ['postgres', 'redis']) {
      assert.ok(compose.services[name]?.healthcheck?.test.length, `${name} has a healthcheck`);
      for (const [, service] of instances) assert.equal(service.depends_on?.[name]?.condition, 'service_healthy');
    }
    for (const [name] of instances) assert.equal(compose.services.proxy!.depends_on?.[name]?.condition, 'service_healthy');
  });

  test('the instances say their regulation mode and get the 30 s docs/production.md asks for before SIGKILL', () => {
    for (const [name, service] of instances) {
      assert.ok(service.environment?.REGULATION, `${name} sets REGULATION`);
      assert.ok(
        service.stop_grace_period !== undefined && seconds(service.stop_grace_period) >= 30,
        `${name}: stop_grace_period of 30 s or more`,
      );
    }
  });

  test('the instances connect as a dedicated role made without superuser rights, not as the superuser', () => {
    const postgres = compose.services.postgres!;
    const superuser = postgres.environment?.POSTGRES_USER ?? 'postgres';
    for (const [name, service] of instances) {
      const role = /^postgres:\/\/([^:@]+)/.exec(service.environment!.DATABASE_URL!)?.[1];
      assert.ok(role !== undefined && role !== superuser, `${name} connects as ${role}, not the superuser ${superuser}`);
      const script = postgres.configs?.find((config) => config.target.startsWith('/docker-entrypoint-initdb.d/'));
      assert.ok(script !== undefined, 'an init script makes the role');
      const content = compose.configs?.[script.source]?.content ?? '';
      assert.match(content, new RegExp(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`));
      assert.match(content, new RegExp(`CREATE DATABASE \\w+ OWNER ${role}`));
    }
  });

  test('docker-compose accepts the file (when installed)', (t) => {
    const env = {
      PATH: process.env.PATH ?? '',
      APP_KEY: `base64:${Buffer.alloc(32, 1).toString('base64')}`,
      PAYMENT_SANDBOX_SECRET: 'secret',
      PIX_KEY: 'key',
      POSTGRES_PASSWORD: 'password',
      CROUPIER_DB_PASSWORD: 'password',
    };
    const result = spawnSync('docker-compose', ['-f', 'compose.yaml', 'config', '--quiet'], { cwd: root, env, encoding: 'utf8' });
    if (result.error !== undefined) {
      t.skip('docker-compose is not installed');
      return;
    }
    assert.equal(result.status, 0, result.stderr);
    const missing = spawnSync('docker-compose', ['-f', 'compose.yaml', 'config', '--quiet'], {
      cwd: root,
      env: { ...env, APP_KEY: '' },
      encoding: 'utf8',
    });
    assert.notEqual(missing.status, 0, 'a missing APP_KEY stops compose before anything starts');
    assert.match(missing.stderr, /APP_KEY/);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));

  test('builds on Node 24, the major the project pins, with production dependencies only', () => {
    const pinned = (JSON.parse(read('package.json')) as { devDependencies: Record<string, string> }).devDependencies.node!;
    const major = /\d+/.exec(pinned)![0];
    const bases = instructions.filter((line) => line.startsWith('FROM '));
    assert.ok(bases.length >= 2, 'multi-stage');
    for (const base of bases) assert.match(base, new RegExp(`^FROM node:${major}-bookworm-slim\\b`));
    assert.ok(instructions.some((line) => /^RUN npm ci --omit=dev\b/.test(line)));
  });

  test('runs as a non-root user with DATA_DIR as a volume and a HEALTHCHECK on /health', () => {
    const user = instructions.filter((line) => line.startsWith('USER ')).at(-1);
    assert.ok(user !== undefined && !/^USER (root|0)\b/.test(user), 'the last USER is not root');
    const dataDir = /DATA_DIR=(\S+)/.exec(dockerfile)?.[1];
    assert.ok(dataDir !== undefined);
    assert.ok(instructions.some((line) => line.startsWith('VOLUME ') && line.includes(`"${dataDir}"`)));
    assert.ok(instructions.some((line) => line.startsWith('HEALTHCHECK ') && line.includes('/health')));
    assert.match(instructions.at(-1)!, /^CMD \["node", "--liftoff-only", "bin\/croupier\.js", "serve"\]/);
  });

  test('copies what migrate reads at start: the migrations and the function files', () => {
    const copied = instructions
      .filter((line) => line.startsWith('COPY ') && !line.includes('--from='))
      .map((line) => line.split(/\s+/).at(-1));
    for (const dir of ['./migrations', './db']) assert.ok(copied.includes(dir), `${dir} is in the image`);
  });

  test('builds the back office in a stage of its own and copies only its output into the image', () => {
    assert.ok(instructions.some((line) => /^RUN node bin\/build-web\.js\b/.test(line)));
    assert.ok(instructions.some((line) => /^COPY --from=web .*\/app\/web\/admin\/dist \.\/web\/admin\/dist$/.test(line)));
  });

  test('copies only paths that exist, and .dockerignore keeps node_modules, .git and data out of the context', () => {
    for (const line of instructions.filter((item) => item.startsWith('COPY ') && !item.includes('--from='))) {
      const sources = line
        .split(/\s+/)
        .slice(1, -1)
        .filter((part) => !part.startsWith('--'));
      for (const source of sources) assert.ok(existsSync(new URL(source, root)), `${source} exists`);
    }
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['node_modules', '.git', 'data', '.env']) assert.ok(ignored.includes(entry), `${entry} is ignored`);
    for (const line of instructions.filter((item) => item.startsWith('COPY ') && !item.includes('--from='))) {
      for (const source of line
        .split(/\s+/)
        .slice(1, -1)
        .filter((part) => !part.startsWith('--'))) {
        assert.equal(ignored.includes(source), false, `${source} is copied but ignored`);
      }
    }
  });
});
