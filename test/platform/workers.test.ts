import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { nodeVersionProblem, requiredRange } from '../../bin/node-version.js';
import { workerCount } from '../../src/cluster.ts';
import { Browser, run, scratch, serve, type Server } from '../helpers/cli.ts';
import { backend } from '../helpers/database.ts';

/** The pid of each process that logged a line, by the request id it logged it for. */
function pidsByRequest(output: string): Map<string, number> {
  const pids = new Map<string, number>();
  for (const line of output.split('\n')) {
    const match = /"pid":(\d+).*"reqId":"([^"]+)"/.exec(line);
    if (match) pids.set(match[2]!, Number(match[1]));
  }
  return pids;
}

/** Pids of the workers that said they listen, in order. */
function listeningPids(output: string): number[] {
  return [...output.matchAll(/"pid":(\d+)[^\n]*Server listening at/g)].map((match) => Number(match[1]));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, probe: () => Promise<T | undefined>, server: Server): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`${what} never happened:\n${server.output()}`);
}

let requests = 0;
/** GET `path` through `browser` until a worker not in `seen` answers; answers its status and pid. */
async function answeredBy(server: Server, browser: Browser, path: string, wanted: (pid: number) => boolean) {
  return until(
    'an answer from the wanted worker',
    async () => {
      const id = `workers-test-${++requests}`;
      const { status } = await browser.call('GET', path, undefined, { 'x-request-id': id });
      // The worker logs the request before it answers; its line reaches the pipe soon after.
      const pid = await until('the request log line', async () => pidsByRequest(server.output()).get(id), server);
      return wanted(pid) ? { status, pid } : undefined;
    },
    server,
  );
}

describe('serve --workers', () => {
  const { dataDir, target } = scratch('croupier-workers-');

  test('the embedded database refuses --workers 2 with one line naming DATABASE_URL, and exits non-zero', async () => {
    const refused = await run(['serve', '--workers', '2'], { DATA_DIR: dataDir(), PORT: '0' });
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /^[^\n]*--workers 2[^\n]*DATABASE_URL[^\n]*\n$/);
  });

  test('--workers takes a whole number, 0 meaning one per core, and only the embedded database stops above one', () => {
    assert.equal(workerCount(undefined, true), 1);
    assert.equal(workerCount('1', true), 1);
    assert.equal(workerCount('0', false, 4), 4);
    assert.equal(workerCount('0', true, 1), 1);
    assert.throws(() => workerCount('0', true, 2), /needs PostgreSQL/);
    assert.throws(() => workerCount('-1', false), /whole number/);
    assert.throws(() => workerCount('two', false), /whole number/);
  });

  if (backend === 'postgres') {
    test('two workers answer on one port, a session made through one is valid through the other, and a killed worker is replaced', async () => {
      const server = await serve({ ...(await target()), LOG_LEVEL: 'info' }, ['--workers', '2']);
      let code: number | null;
      try {
        const workers = await until(
          'both workers listening',
          async () => {
            const pids = listeningPids(server.output());
            return pids.length >= 2 ? pids : undefined;
          },
          server,
        );
        assert.equal(new Set(workers).size, 2);
        assert.ok(!workers.includes(server.child.pid!), 'the primary serves no request itself');

        const browser = new Browser(server.url);
        assert.equal((await browser.call('GET', '/api/csrf-cookie')).status, 204);
        const password = 'Workers-Password-1';
        const registered = await browser.call('POST', '/api/register', {
          name: 'W',
          email: 'workers@example.com',
          password,
          password_confirmation: password,
          agreement: true,
        });
        assert.equal(registered.status, 201, registered.text);
        for (const pid of workers) {
          const answer = await answeredBy(server, browser, '/api/user', (by) => by === pid);
          assert.equal(answer.status, 200, `worker ${pid} does not know the session`);
        }

        const [victim, survivor] = workers as [number, number];
        process.kill(victim, 'SIGKILL');
        const replacement = await until(
          'a replacement worker',
          async () => listeningPids(server.output()).find((pid) => !workers.includes(pid)),
          server,
        );
        assert.match(server.output(), new RegExp(`"worker":${victim}[^\\n]*worker died`));
        const answer = await answeredBy(server, browser, '/api/user', (by) => by === replacement);
        assert.equal(answer.status, 200, 'the replacement knows the session too');
        assert.equal((await answeredBy(server, browser, '/api/user', (by) => by === survivor)).status, 200);
      } finally {
        code = await server.stop();
      }
      assert.equal(code, 0, `a graceful stop of every worker exits 0:\n${server.output()}`);
      assert.equal((server.output().match(/"signal":"SIGTERM"[^\n]*shutting down/g) ?? []).length, 2, 'each worker shut down gracefully');
    });

    test('/metrics under --workers counts what every worker served, whichever worker answers the scrape', async () => {
      const server = await serve({ ...(await target()), LOG_LEVEL: 'info', METRICS_ENABLED: 'on' }, ['--workers', '2']);
      try {
        await until('both workers listening', async () => (listeningPids(server.output()).length >= 2 ? true : undefined), server);
        const browser = new Browser(server.url);
        // Each call opens its own connection, which the cluster hands to the workers in turn.
        for (let i = 0; i < 20; i++) {
          const { status } = await browser.call('GET', '/api/csrf-cookie', undefined, { 'x-request-id': `metrics-${i}` });
          assert.equal(status, 204);
        }
        const pids = await until(
          'every request logged',
          async () => {
            const seen = Array.from({ length: 20 }, (_, i) => pidsByRequest(server.output()).get(`metrics-${i}`));
            return seen.every((pid) => pid !== undefined) ? new Set(seen) : undefined;
          },
          server,
        );
        assert.equal(pids.size, 2, 'both workers served some of them');
        for (let scrape = 0; scrape < 4; scrape++) {
          const metrics = await browser.call('GET', '/metrics');
          assert.equal(metrics.status, 200, metrics.text);
          const count = /croupier_http_request_duration_seconds_count\{method="GET",route="\/api\/csrf-cookie",status="204"\} (\d+)/.exec(
            metrics.text,
          );
          assert.equal(count?.[1], '20', metrics.text.slice(0, 2000));
        }
      } finally {
        await server.stop();
      }
    });
  }
});

describe('Node version check', () => {
  test('a Node older than package.json engines gets one line saying which Node is needed and what to do', () => {
    const range = requiredRange();
    assert.match(range, /^>=\d+\.\d+\.\d+$/);
    const problem = nodeVersionProblem('20.20.2', range);
    assert.ok(problem !== undefined);
    assert.doesNotMatch(problem, /\n/);
    assert.match(problem, /needs Node \d+\.\d+\.\d+ or newer/);
    assert.match(problem, /this is Node 20\.20\.2/);
    assert.match(problem, /install Node 24/);
  });

  test('the floor compares major, minor and patch as numbers', () => {
    assert.ok(nodeVersionProblem('22.9.0', '>=22.18.0') !== undefined);
    assert.ok(nodeVersionProblem('22.17.9', '>=22.18.0') !== undefined);
    assert.equal(nodeVersionProblem('22.18.0', '>=22.18.0'), undefined);
    assert.equal(nodeVersionProblem('22.100.0', '>=22.18.0'), undefined);
    assert.equal(nodeVersionProblem('24.0.0', '>=22.18.0'), undefined);
    assert.equal(nodeVersionProblem(process.versions.node, requiredRange()), undefined, 'the Node running the tests passes');
  });
});
