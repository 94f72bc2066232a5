import assert from 'node:assert/strict';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { spawn } from 'node:child_process';
import { Browser, BIN, run, scratch, serve } from '../helpers/cli.ts';
import { backend } from '../helpers/database.ts';
import { NODE_FLAGS } from '../../bin/node-flags.js';

describe('command line', () => {
  const { dataDir, target } = scratch('croupier-cli-');

  test('admin:create prints the new id, and promotes an existing user to the same id', async () => {
    const where = await target();
    const first = await run(['admin:create', '--email', 'Boss@Example.com', '--password', 'long-enough-pw'], where);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^\d+\n$/);
    const again = await run(['admin:create', '--email', 'boss@example.com', '--password', 'another-password', '--name', 'Boss'], where);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, first.stdout);
  });

  test('admin:create refuses bad input with one line', async () => {
    const where = { DATA_DIR: dataDir() };
    const missing = await run(['admin:create', '--email', 'a@b.co'], where);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr.trim().split('\n').length, 1);
    const badEmail = await run(['admin:create', '--email', 'nope', '--password', 'long-enough-pw'], where);
    assert.equal(badEmail.code, 2);
    assert.equal(badEmail.stderr.trim().split('\n').length, 1, badEmail.stderr);
    const short = await run(['admin:create', '--email', 'a@b.co', '--password', 'short'], where);
    assert.equal(short.code, 2);
    assert.match(short.stderr, /at least 8 characters/);
  });

  if (backend === 'pglite') {
    test('while a server holds the embedded database, it carries out admin:create, seed:demo, ledger:verify and migrate with the output and exit codes they have without one', async () => {
      const commands = [
        ['admin:create', '--email', 'ops@example.com', '--password', 'a long password'],
        ['seed:demo', '--password', 'demo password'],
        ['seed:demo', '--password', 'demo password'],
        ['ledger:verify'],
        ['migrate'],
        ['admin:create', '--email', 'not-an-email', '--password', 'a long password'],
        ['admin:create', '--email', 'ops@example.com'],
        ['seed:demo', '--password', 'short'],
      ];
      const alone = { DATA_DIR: dataDir() };
      const expected = [];
      for (const args of commands) expected.push(await run(args, alone));
      assert.deepEqual(
        expected.map((result) => result.code),
        [0, 0, 0, 0, 0, 2, 2, 2],
        expected.map((result) => result.stderr).join(''),
      );

      const where = { DATA_DIR: dataDir() };
      const server = await serve(where);
      try {
        for (const [index, args] of commands.entries()) {
          const result = await run(args, where);
          assert.equal(result.code, expected[index]!.code, `${args.join(' ')}: ${result.stderr}`);
          assert.equal(result.stdout, expected[index]!.stdout, args.join(' '));
          const [said, ...rest] = result.stderr.split('\n');
          // Usage errors are found before the database is asked for: nothing is sent to the server.
          if (result.code !== 2 || args[2] === 'not-an-email') {
            assert.match(
              said!,
              new RegExp(`^Carried out by the server \\(process ${server.child.pid}\\) holding the embedded database in `),
            );
            assert.equal(rest.join('\n'), expected[index]!.stderr, args.join(' '));
          } else {
            assert.equal(result.stderr, expected[index]!.stderr, args.join(' '));
          }
        }
        const operator = new Browser(server.url);
        await operator.call('GET', '/api/csrf-cookie');
        assert.equal((await operator.call('POST', '/api/login', { email: 'ops@example.com', password: 'a long password' })).status, 200);
        const user = JSON.parse((await operator.call('GET', '/api/user')).text) as { roles: string[] };
        assert.ok(user.roles.includes('super-admin'), JSON.stringify(user));
        const demo = new Browser(server.url);
        await demo.call('GET', '/api/csrf-cookie');
        assert.equal((await demo.call('POST', '/api/login', { email: 'demo@example.com', password: 'demo password' })).status, 200);
        // Another server is still refused at once.
        const anotherServer = await run(['serve'], { ...where, PORT: '0' });
        assert.equal(anotherServer.code, 1);
        assert.match(anotherServer.stderr.trim(), /^[^\n]*in use[^\n]*$/);
      } finally {
        assert.equal(await server.stop(), 0, 'a graceful shutdown exits 0');
      }
      const log = server.output();
      assert.match(log, /carried out a command for the command line/);
      assert.ok(!log.includes('a long password') && !log.includes('demo password'), 'a password sent over the socket reached the log');
      // The lock and the socket go with the server; the next command runs in its own process.
      assert.ok(!existsSync(join(where.DATA_DIR, 'croupier.sock')));
      const after = await run(['ledger:verify'], where);
      assert.equal(after.code, 0, after.stderr);
      assert.equal(after.stderr, '');
    });

    test('the command socket opens for its owner only (0600); a socket others may open is not trusted with a command', async () => {
      const where = { DATA_DIR: dataDir() };
      const server = await serve(where);
      const socket = join(where.DATA_DIR, 'croupier.sock');
      try {
        const stats = statSync(socket);
        assert.ok(stats.isSocket());
        assert.equal(stats.mode & 0o777, 0o600);
        assert.equal(stats.uid, process.getuid!());
        chmodSync(socket, 0o666);
        const refused = await run(['admin:create', '--email', 'ops@example.com', '--password', 'a long password'], where);
        assert.equal(refused.code, 1);
        assert.equal(refused.stdout, '');
        assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
        assert.match(refused.stderr, /^Not carried out: .*may be opened by other users/);
        chmodSync(socket, 0o600);
        const browser = new Browser(server.url);
        await browser.call('GET', '/api/csrf-cookie');
        assert.equal((await browser.call('POST', '/api/login', { email: 'ops@example.com', password: 'a long password' })).status, 422);
      } finally {
        await server.stop();
      }
    });

    test('a server killed with SIGKILL leaves a socket that blocks neither a command nor the next server', async () => {
      const where = { DATA_DIR: dataDir() };
      const killed = await serve(where);
      killed.child.kill('SIGKILL');
      await killed.stop();
      assert.ok(existsSync(join(where.DATA_DIR, 'croupier.sock')), 'the killed server left its socket');
      const alone = await run(['admin:create', '--email', 'ops@example.com', '--password', 'a long password'], where);
      assert.equal(alone.code, 0, alone.stderr);
      assert.equal(alone.stderr, '');
      const server = await serve(where);
      try {
        const through = await run(['admin:create', '--email', 'ops@example.com', '--password', 'a long password'], where);
        assert.equal(through.code, 0, through.stderr);
        assert.equal(through.stdout, alone.stdout);
        assert.match(through.stderr, /^Carried out by the server/);
      } finally {
        await server.stop();
      }
    });

    test('a server started while a command holds the embedded database waits for it, then serves', async () => {
      const where = { DATA_DIR: dataDir() };
      const lock = join(where.DATA_DIR, 'croupier.lock');
      // This test's own process stands for a command that holds the database.
      writeFileSync(lock, `${process.pid}\ncommand\n`);
      const child = spawn(process.execPath, [...NODE_FLAGS, BIN, 'serve'], {
        env: { PATH: process.env.PATH, DATA_DIR: where.DATA_DIR, PORT: '0' },
      });
      let output = '';
      let closed = false;
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('close', () => (closed = true));
      const seen = async (text: string) => {
        while (!output.includes(text)) {
          if (closed) throw new Error(`serve exited before saying ${text}:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      const exited = new Promise((resolve) => child.once('close', resolve));
      try {
        await seen(`Waiting for the command (process ${process.pid}) holding the embedded database`);
        // The command finishes.
        rmSync(lock);
        await seen('Server listening at');
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    });

    test('a command holding the embedded database stops another at once with one line saying so', async () => {
      const where = { DATA_DIR: dataDir() };
      // This test's own process stands for a command that holds the database.
      writeFileSync(join(where.DATA_DIR, 'croupier.lock'), `${process.pid}\ncommand\n`);
      const second = await run(['admin:create', '--email', 'a@b.co', '--password', 'long-enough-pw'], where);
      assert.equal(second.code, 1);
      assert.equal(second.stdout, '');
      const lines = second.stderr.trim().split('\n');
      assert.equal(lines.length, 1, second.stderr);
      assert.match(lines[0]!, new RegExp(`in use by process ${process.pid}`));
    });
  }

  test('a running server logs requests at trace level without a password, session id, token, 2FA secret or recovery code', async () => {
    const where = await target();
    const server = await serve(where);
    const secrets: string[] = [];
    try {
      const browser = new Browser(server.url);
      assert.equal((await browser.call('GET', '/api/csrf-cookie')).status, 204);
      secrets.push(browser.jar.get('gp_session')!, browser.jar.get('XSRF-TOKEN')!);
      const email = 'logged@example.com';
      const password = 'Log-Me-Not-Password';
      secrets.push(password);
      assert.equal(
        (await browser.call('POST', '/api/register', { name: 'L', email, password, password_confirmation: password, agreement: true }))
          .status,
        201,
      );
      secrets.push(browser.jar.get('gp_session')!, browser.jar.get('XSRF-TOKEN')!);
      assert.equal((await browser.call('POST', '/api/user/confirm-password', { password })).status, 201);
      assert.equal((await browser.call('POST', '/api/user/two-factor-authentication')).status, 200);
      const secret = JSON.parse((await browser.call('GET', '/api/user/two-factor-secret-key')).text) as { secretKey: string };
      secrets.push(secret.secretKey);
      secrets.push(...(JSON.parse((await browser.call('GET', '/api/user/two-factor-recovery-codes')).text) as string[]));
      assert.equal((await browser.call('POST', '/api/login', { email, password: 'Wrong-Password-Here', remember: true })).status, 422);
      secrets.push('Wrong-Password-Here');
      assert.equal((await browser.call('POST', '/api/login', { email, password, remember: true })).status, 200);
      secrets.push(browser.jar.get('gp_session')!, browser.jar.get('remember_web_59ba36addc2b2f9401580f014c7f58ea4e30989d')!);
      assert.equal((await browser.call('POST', '/api/forgot-password', { email })).status, 200);
      if (backend === 'pglite') {
        const mailDir = join(where.DATA_DIR!, 'mail');
        const [file] = readdirSync(mailDir);
        const mail = readFileSync(join(mailDir, file!), 'utf8').replace(/=\r?\n/g, '');
        const token = /password-reset\/([0-9a-f]{64})/.exec(mail)![1]!;
        secrets.push(token);
        assert.equal(
          (
            await browser.call('POST', '/api/reset-password', {
              token,
              email,
              password: 'Next-Password-123',
              password_confirmation: 'Next-Password-123',
            })
          ).status,
          200,
        );
        secrets.push('Next-Password-123');
      }
      assert.equal((await browser.call('GET', '/api/nope')).status, 404);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const log = server.output();
    assert.match(log, /"reqId"/, 'requests are logged');
    for (const secret of secrets) assert.ok(secret && !log.includes(secret), `a secret (${secret.slice(0, 4)}…) is in the log`);
  });

  test('admin:create promoting an existing user with a new password ends their sessions and retires their remember-me cookie', async () => {
    const where = await target();
    const email = 'promoted@example.com';
    const password = 'Old-Password-123';
    const server = await serve(where);
    try {
      const signedUp = new Browser(server.url);
      await signedUp.call('GET', '/api/csrf-cookie');
      const body = { name: 'P', email, password, password_confirmation: password, agreement: true };
      assert.equal((await signedUp.call('POST', '/api/register', body)).status, 201);
      const remembered = new Browser(server.url);
      await remembered.call('GET', '/api/csrf-cookie');
      assert.equal((await remembered.call('POST', '/api/login', { email, password, remember: true })).status, 200);
      // Only the remember-me cookie: the next request revives a session from it.
      for (const name of [...remembered.jar.keys()]) if (!name.startsWith('remember_web_')) remembered.jar.delete(name);
      // On the embedded database, the server carries the command out and drops the sessions it holds in memory.
      const promoted = await run(['admin:create', '--email', email, '--password', 'New-Password-456'], where);
      assert.equal(promoted.code, 0, promoted.stderr);
      for (const [name, browser] of [
        ['the signed-in session', signedUp],
        ['the remember-me cookie', remembered],
      ] as const) {
        const again = new Browser(server.url);
        for (const [key, value] of browser.jar) again.jar.set(key, value);
        assert.equal((await again.call('GET', '/api/user')).status, 401, name);
      }
      const fresh = new Browser(server.url);
      await fresh.call('GET', '/api/csrf-cookie');
      assert.equal((await fresh.call('POST', '/api/login', { email, password: 'New-Password-456' })).status, 200);
      assert.deepEqual((JSON.parse((await fresh.call('GET', '/api/user')).text) as { roles: string[] }).roles.sort(), [
        'player',
        'super-admin',
      ]);
    } finally {
      await server.stop();
    }
  });

  if (backend === 'postgres') {
    test('with PostgreSQL, commands run beside a running server', async () => {
      const where = await target();
      const server = await serve(where);
      try {
        const created = await run(['admin:create', '--email', 'beside@example.com', '--password', 'long-enough-pw'], where);
        assert.equal(created.code, 0, created.stderr);
        assert.match(created.stdout, /^\d+\n$/);
        const migrated = await run(['migrate'], where);
        assert.equal(migrated.code, 0, migrated.stderr);
        assert.equal(migrated.stdout.trim(), 'Nothing to migrate.');
      } finally {
        await server.stop();
      }
    });
  }
});
