// `npx node bench/catalogue.ts`: the customer game list, `GET /api/providers/:provider/games` signed
// in, against the bare route in the same run (issue 9: at least 60 % of its req/s at 50
// connections), on a fresh PostgreSQL database. The list is served from the catalogue cache;
// /api/user (signed in, no catalogue) and the floor route are measured beside it to show where
// the rest of the time goes. Same harness as `npm run bench`: server in its own process,
// autocannon from this one. See docs/games.md.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchDatabase } from './lib/database.ts';
import { measureRounds, median, type LoadResult } from './lib/load.ts';
import { startServer } from './lib/server.ts';
import { expectStatus, registerAndSignIn } from './lib/session.ts';
import { formatTable } from './lib/table.ts';

const TARGET_SHARE_OF_BARE = 0.6;

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    games: { type: 'string', default: '60' },
    redis: { type: 'string' },
    // Without it every request says what Chromium says, `Accept-Encoding: gzip, deflate, br, zstd`:
    // the catalogue is read by browsers (the SPA), and its cached pages are kept compressed.
    identity: { type: 'boolean', default: false },
  },
});
const whole = (name: keyof typeof values): number => {
  const value = Number(values[name]);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`--${name} must be a positive whole number.`);
    process.exit(2);
  }
  return value;
};
const rounds = whole('rounds');
const games = whole('games');
const load = { connections: whole('connections'), duration: whole('duration'), warmup: Number(values.warmup) };
const envUrl = process.env.DATABASE_URL?.trim();

const database = await benchDatabase({ databaseUrl: envUrl === '' ? undefined : envUrl, name: 'croupier_bench_catalogue' });
const server = await startServer({
  databaseUrl: database.databaseUrl,
  dataDir: database.dataDir,
  env: values.redis === undefined ? {} : { REDIS_URL: values.redis },
  execArgv: process.env.CPU_PROF === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF}`],
});
let failed = false;
try {
  const session = await registerAndSignIn(server.url);
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  // A catalogue of the size a provider has: written directly, the bench is about reading it.
  await client.query(`insert into providers (name, code, sort) select 'Provider ' || g, 'provider-' || g, g from generate_series(1, 10) g`);
  await client.query(
    `insert into provider_games (provider_id, name, slug, code, category_id, thumbnail, sort, popular, status)
     select p.id, 'Game ' || g, p.code || '-game-' || g, g::text, g % 5,
       'uploads/2026/11/' || rpad(md5(p.code || g), 40, 'x') || '.png', g % 20, (g % 4 = 0)::int, (g % 10 <> 0)::int
     from providers p, generate_series(1, $1::int) g`,
    [games],
  );
  await client.query('vacuum analyze');
  await client.end();

  const path = '/api/providers/provider-3/games';
  const first = (await expectStatus(server.url, path, session.headers)) as { meta: { total: number } };
  await expectStatus(server.url, '/bench/bare', {});
  await expectStatus(server.url, '/api/user', session.headers);
  console.log(`customer catalogue on ${database.label}${values.redis === undefined ? '' : ` with Redis ${values.redis}`}`);
  console.log(`10 providers × ${games} games (${first.meta.total} enabled in the list measured), page 1 of 15`);
  console.log(
    `${load.connections} connections, ${load.warmup} s warm-up + ${load.duration} s per route, ${rounds} interleaved rounds (medians)\n`,
  );

  const browser: Record<string, string> = values.identity ? {} : { 'accept-encoding': 'gzip, deflate, br, zstd' };
  const signedIn = { ...session.headers, ...browser };
  console.log(values.identity ? 'no Accept-Encoding (--identity)' : `every request with Accept-Encoding: ${browser['accept-encoding']}`);
  const routes = [
    { ...load, label: 'GET /bench/bare', url: `${server.url}/bench/bare`, headers: browser },
    { ...load, label: 'GET /api/user (signed in)', url: `${server.url}/api/user`, headers: signedIn },
    { ...load, label: `GET ${path} (signed in)`, url: `${server.url}${path}`, headers: signedIn },
    { ...load, label: 'GET /api/providers (signed in)', url: `${server.url}/api/providers`, headers: signedIn },
  ].map((route) => ({ ...route, serverCpu: () => server.cpu() }));
  const shares: number[] = [];
  const table = (results: LoadResult[]) =>
    formatTable(results, [
      { title: 'vs bare', result: results[0]! },
      { title: 'vs /api/user', result: results[1]! },
    ]);
  const results = await measureRounds(routes, rounds, (round, roundResults) => {
    shares.push(roundResults[2]!.rps / roundResults[0]!.rps);
    if (rounds > 1) console.log(`round ${round}/${rounds}\n${table(roundResults)}\n`);
  });
  if (rounds > 1) console.log(`median of ${rounds} rounds`);
  console.log(table(results));
  const share = median(shares);
  console.log(
    `\ntarget: the game list >= ${TARGET_SHARE_OF_BARE * 100}% of bare req/s: ` +
      `${(share * 100).toFixed(1)}%${rounds > 1 ? " (median of the rounds' ratios: " + shares.map((s) => `${(s * 100).toFixed(1)}%`).join(', ') + ')' : ''}` +
      ` -> ${share >= TARGET_SHARE_OF_BARE ? 'met' : 'MISSED'}`,
  );
  if (results.some((result) => result.failures > 0)) {
    console.error('\nSome requests failed (non-2xx, errors or timeouts): these figures are not valid.');
    failed = true;
  }
} catch (error) {
  console.error(error);
  failed = true;
} finally {
  await server.stop();
  await database.cleanup();
}
process.exit(failed ? 1 : 0);
