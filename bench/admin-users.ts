// `node bench/admin-users.ts`: the admin user list with 10,000 users on PostgreSQL, first page
// against last page (issue 3: the last page may cost at most twice the first in req/s).
// Same harness as `npm run bench`: server in its own process, autocannon from this one.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchDatabase } from './lib/database.ts';
import { measureRounds, type LoadResult } from './lib/load.ts';
import { startServer } from './lib/server.ts';
import { expectStatus, registerAndSignIn } from './lib/session.ts';
import { formatTable } from './lib/table.ts';

const { values } = parseArgs({
  options: {
    users: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
  },
});
const users = Number(values.users);
const load = { connections: Number(values.connections), duration: Number(values.duration), warmup: Number(values.warmup) };
const envUrl = process.env.DATABASE_URL?.trim();
const database = await benchDatabase({ databaseUrl: envUrl === '' ? undefined : envUrl, name: 'croupier_bench_admin' });
const server = await startServer({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
let failed = false;
try {
  const admin = await registerAndSignIn(server.url, 'Bench Admin');
  const client = new pg.Client({ connectionString: database.databaseUrl });
  await client.connect();
  await client.query(
    `insert into role_user (user_id, role_id)
    select u.id, r.id from users u, roles r where u.email = $1 and r.name = 'super-admin'`,
    [admin.email],
  );
  // The accounts are written directly: the bench is about reading the list, not about registering.
  await client.query(
    `insert into users (name, email, password, remember_nonce, status, is_partner)
     select 'User ' || g, 'user' || g || '@bench.test', '$argon2id$v=19$m=19456,t=2,p=1$x$y', md5(g::text), (g % 10 <> 0)::int, g % 7 = 0
     from generate_series(1, $1::int) g`,
    [users - 1],
  );
  await client.query(`insert into role_user (user_id, role_id) select u.id, r.id from users u, roles r
    where r.name = 'player' and u.email like '%@bench.test'`);
  await client.query('vacuum analyze');
  await client.end();

  const first = (await expectStatus(server.url, '/api/admin/users', admin.headers)) as { meta: { last_page: number; total: number } };
  const lastPage = first.meta.last_page;
  await expectStatus(server.url, `/api/admin/users?page=${lastPage}`, admin.headers);
  console.log(`admin user list on ${database.label}: ${first.meta.total} users, 15 per page, last page ${lastPage}`);
  console.log(
    `${load.connections} connections, ${load.warmup} s warm-up + ${load.duration} s per route, ${values.rounds} interleaved rounds (medians)\n`,
  );
  const results = await measureRounds(
    [
      {
        ...load,
        label: 'GET /api/admin/users (page 1)',
        url: `${server.url}/api/admin/users`,
        headers: admin.headers,
        serverCpu: () => server.cpu(),
      },
      {
        ...load,
        label: `GET /api/admin/users?page=${Math.ceil(lastPage / 2)} (middle)`,
        url: `${server.url}/api/admin/users?page=${Math.ceil(lastPage / 2)}`,
        headers: admin.headers,
        serverCpu: () => server.cpu(),
      },
      {
        ...load,
        label: `GET /api/admin/users?page=${lastPage} (last)`,
        url: `${server.url}/api/admin/users?page=${lastPage}`,
        headers: admin.headers,
        serverCpu: () => server.cpu(),
      },
    ],
    Number(values.rounds),
  );
  console.log(formatTable(results, [{ title: 'vs page 1', result: results[0]! }]));
  const [firstPage, , last] = results as [LoadResult, LoadResult, LoadResult];
  const ratio = firstPage.rps / last.rps;
  console.log(`\ntarget: last page costs at most 2x the first in req/s: ${ratio.toFixed(2)}x -> ${ratio <= 2 ? 'met' : 'MISSED'}`);
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
