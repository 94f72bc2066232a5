import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { BIN, Browser, env, run, scratch, serve, type Server } from '../helpers/cli.ts';
import { backend } from '../helpers/database.ts';
import { freePort } from '../resilience/instances.ts';

async function signIn(url: string, email: string, password: string): Promise<Browser> {
  const browser = new Browser(url);
  assert.equal((await browser.call('GET', '/api/csrf-cookie')).status, 204);
  const login = await browser.call('POST', '/api/login', { email, password });
  assert.equal(login.status, 200, login.text);
  return browser;
}

async function json<T>(browser: Browser, method: string, path: string, body?: unknown): Promise<T> {
  const res = await browser.call(method, path, body);
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
  return JSON.parse(res.text) as T;
}

/** Starts and stops a server, and answers the lines of its output that hold `text`. */
async function startedSaying(env: Record<string, string>, text: string): Promise<{ server: Server; lines: string[] }> {
  const server = await serve(env);
  await server.stop();
  return {
    server,
    lines: server
      .output()
      .split('\n')
      .filter((line) => line.includes(text)),
  };
}

interface Page<T> {
  data: T[];
  links: { first: string; last: string };
  meta: { path: string };
}

describe('the README quick start, top to bottom', () => {
  const { target } = scratch('croupier-quick-start-');

  test('with `npm start` running on PORT, admin:create and seed:demo succeed, both accounts sign in, and every link names that port', async () => {
    const where = await target();
    const port = await freePort();
    const origin = `http://localhost:${port}`;
    const server = await serve({ ...where, PORT: String(port) });
    try {
      assert.equal(server.url, `http://127.0.0.1:${port}`);
      const admin = await run(['admin:create', '--email', 'ops@example.com', '--password', 'a long password'], where);
      assert.equal(admin.code, 0, admin.stderr);
      const seeded = await run(['seed:demo', '--password', 'demo password'], where);
      assert.equal(seeded.code, 0, seeded.stderr);
      assert.match(seeded.stdout, /demo player: demo@example\.com/);

      const operator = await signIn(server.url, 'ops@example.com', 'a long password');
      // The README's last step: the back office, built by the install, served by this server.
      const office = await operator.call('GET', '/admin/');
      assert.equal(office.status, 200, office.text);
      assert.match(office.text, /<div id="root"><\/div>/);
      assert.ok((await json<{ roles: string[] }>(operator, 'GET', '/api/user')).roles.includes('super-admin'));

      const player = await signIn(server.url, 'demo@example.com', 'demo password');
      const games = await json<Page<{ thumbnail_url: string | null }>>(player, 'GET', '/api/providers/demo/games');
      assert.ok(games.data.length > 0);
      for (const link of [games.links.first, games.links.last, games.meta.path]) assert.ok(link.startsWith(`${origin}/`), link);
      for (const game of games.data) assert.ok(game.thumbnail_url?.startsWith(`${origin}/storage/`), String(game.thumbnail_url));

      const launched = await json<{ data: { url: string } }>(player, 'GET', '/api/provider-games/demo-fruit-slot/launch');
      assert.ok(launched.data.url.startsWith(`${origin}/games/demo/play?token=`), launched.data.url);

      const methods = await json<Page<{ id: number }>>(player, 'GET', '/api/payment-methods');
      assert.ok(methods.links.first.startsWith(`${origin}/api/payment-methods`), methods.links.first);
      const topup = await json<{ data: { payment_url: string } }>(player, 'POST', '/api/topups', {
        payment_method_id: methods.data[0]!.id,
        amount: 10,
      });
      assert.ok(topup.data.payment_url.startsWith(`${origin}/pay/`), topup.data.payment_url);

      const openapi = await json<{ servers: { url: string }[] }>(player, 'GET', '/docs/json');
      // Relative: Try it out reaches whichever address /docs was opened at.
      assert.deepEqual(
        openapi.servers.map((server) => server.url),
        ['/'],
      );
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  test('PORT=0 takes a port the system chooses, and links name that port', async () => {
    const where = await target();
    const server = await serve({ ...where, PORT: '0' });
    try {
      const port = new URL(server.url).port;
      // The start line follows `Server listening`, which is what serve() waited for.
      const ready = `croupier ready at http://localhost:${port} `;
      for (const until = Date.now() + 30_000; !server.output().includes(ready) && Date.now() < until;) await sleep(50);
      assert.ok(server.output().includes(ready), server.output());
      const docs = await new Browser(server.url).call('GET', '/docs/json');
      assert.equal(docs.status, 200);
    } finally {
      await server.stop();
    }
  });

  test('one line at start names the database, DATA_DIR, migrations, workers, the scheduler, Redis, the URL, REGULATION, EMAIL_VERIFICATION and the pid', async () => {
    const where = await target();
    const { server, lines } = await startedSaying({ ...where, LOG_LEVEL: 'info' }, 'croupier ready at');
    assert.equal(lines.length, 1, server.output());
    const line = JSON.parse(lines[0]!) as { msg: string; startup: Record<string, unknown> };
    const port = new URL(server.url).port;
    assert.equal(line.startup.url, `http://localhost:${port}`);
    assert.equal(line.startup.listening, `127.0.0.1:${port}`);
    assert.equal(line.startup.dataDir, where.DATA_DIR);
    assert.equal(line.startup.workers, 1);
    assert.equal(line.startup.redis, 'off');
    assert.equal(line.startup.regulation, 'none');
    assert.equal(line.startup.emailVerification, 'off');
    assert.equal(typeof line.startup.pid, 'number');
    assert.match(String(line.startup.scheduler), /^(leads|leader-elected)/);
    const migrations = line.startup.migrations as { applied: number; total: number; fromTemplate?: boolean };
    // A fresh DATA_DIR is made by this start, copied from the migrated template npm install made
    // (npm test makes it too); the test's PostgreSQL database comes migrated.
    assert.ok(migrations.total > 0, JSON.stringify(migrations));
    assert.deepEqual(
      migrations,
      backend === 'pglite'
        ? { applied: migrations.total, total: migrations.total, fromTemplate: true }
        : { applied: 0, total: migrations.total },
    );
    if (backend === 'pglite') assert.match(line.msg, /migrations: \d+ applied \(a new DATA_DIR, copied from the migrated template\)/);
    if (backend === 'pglite') {
      assert.equal(line.startup.database, `embedded ${where.DATA_DIR}/pgdata`);
    } else {
      const url = new URL(where.DATABASE_URL!);
      assert.equal(line.startup.database, `PostgreSQL ${url.hostname}:${url.port}${url.pathname}`);
      assert.ok(!line.msg.includes(url.password || 'no-password-in-url') && !line.msg.includes(`${url.username}@`), line.msg);
    }
    for (const part of [
      `http://localhost:${port}`,
      String(line.startup.database),
      `DATA_DIR: ${where.DATA_DIR}`,
      'migrations:',
      'workers: 1',
      'draw scheduler:',
      'Redis: off',
      'REGULATION: none',
      'EMAIL_VERIFICATION: off',
      'APP_LOCALE: en',
      `pid: ${String(line.startup.pid)}`,
    ]) {
      assert.ok(line.msg.includes(part), `${part} is not in: ${line.msg}`);
    }
  });

  test('an APP_URL that is not where the server listens is said once at start', async () => {
    const where = await target();
    const { server, lines } = await startedSaying(
      { ...where, LOG_LEVEL: 'info', APP_URL: 'https://casino.example.test' },
      'APP_URL is https://casino.example.test, not where this server listens',
    );
    assert.equal(lines.length, 1, server.output());
    const quiet = await serve({ ...(await target()), LOG_LEVEL: 'info' });
    await quiet.stop();
    assert.ok(!quiet.output().includes('not where this server listens'), quiet.output());
  });

  test('SIGTERM to the process `npm start` runs stops the server, whose pid the start line names, too', async () => {
    const where = await target();
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: join(BIN, '../..'),
      env: env({ PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...where }),
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(npm, 'close');
    let pid: number | undefined;
    const startBy = Date.now() + 120_000;
    while (pid === undefined && Date.now() < startBy) {
      const line = output.split('\n').find((text) => text.includes('croupier ready at'));
      if (line !== undefined) pid = (JSON.parse(line) as { startup: { pid: number } }).startup.pid;
      else await sleep(100);
    }
    assert.ok(pid !== undefined, output);
    try {
      npm.kill('SIGTERM');
      await exited;
      let alive = true;
      const goneBy = Date.now() + 15_000;
      while (alive && Date.now() < goneBy) {
        try {
          process.kill(pid, 0);
          await sleep(100);
        } catch {
          alive = false;
        }
      }
      assert.equal(alive, false, `the server (pid ${pid}) outlived npm:\n${output}`);
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone, as it should be.
      }
    }
  });
});
