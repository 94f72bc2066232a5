// migrations/20261130090000_player_standing.sql moves what the check of a stake reads onto one
// derived row per player. A database upgraded from before it must refuse exactly whom it refused
// before: the migration derives the rows of players with limits, exclusions or identities, and
// the triggers it brings keep them derived from then on.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { rows, type Db } from '../../src/platform/db/client.ts';
import { listFunctions } from '../../src/platform/db/functions.ts';
import { listMigrations, migrate } from '../../src/platform/db/migrate.ts';
import { freshDatabase } from '../helpers/database.ts';

const MIGRATION = '20261130090000_player_standing';

async function refusals(db: Db): Promise<Array<{ id: string; reason: string | null; until: string | null }>> {
  return rows(
    db,
    sql`select u.id::text as id, r.reason, r.until::text as until from users u
      cross join lateral responsible_gambling_refusal(u.id, null, now(), null) r order by u.id`,
  );
}

describe(`migration ${MIGRATION}`, () => {
  test('players limited, excluded or listed before the upgrade are refused as before, and changes after it count at once', async () => {
    const before = listMigrations().filter((migration) => migration.name < MIGRATION);
    const database = await freshDatabase(before, { migrated: false });
    try {
      // The release before this one: its migrations, and none of the files that came with this one.
      await migrate(
        database.database,
        before,
        listFunctions().filter((file) => !file.name.startsWith('player_standing')),
      );
      const { db } = database.database;
      await db.execute(sql`insert into users (name, email, password, remember_nonce)
        select 'P' || g, 'p' || g || '@upgrade.test', 'x', md5(g::text) from generate_series(1, 4) g`);
      // 1: limits set, free to play; 2: excluded until 2999; 3: listed; 4: nothing set.
      await db.execute(sql`insert into user_limits (user_id, field, value)
        select u, f, case when f = 'session_minutes' then 60 else 1000 end
        from generate_series(1, 3) u cross join unnest(array['loss_daily', 'session_minutes']) f`);
      await db.execute(sql`insert into self_exclusions (user_id, until, permanent) values (2, '2999-01-01Z', false)`);
      await db.execute(sql`insert into user_identities (user_id, cpf, full_name, birth_date, status, verifier)
        values (3, '11144477735', 'Listed Player', '1990-01-01', 'verified', 'manual')`);
      await db.execute(sql`insert into national_exclusions (cpf) values ('11144477735')`);

      assert.ok((await migrate(database.database)).includes(MIGRATION));
      assert.deepEqual(await refusals(db), [
        { id: '1', reason: null, until: null },
        {
          id: '2',
          reason: 'self_excluded',
          until: (await rows<{ t: string }>(db, sql`select '2999-01-01Z'::timestamptz::text as t`))[0]!.t,
        },
        { id: '3', reason: 'listed', until: null },
        { id: '4', reason: 'limits_unset', until: null },
      ]);

      // After the upgrade: a permanent exclusion, a removed limit, a list without player 3.
      await db.execute(sql`insert into self_exclusions (user_id, until, permanent) values (1, null, true)`);
      await db.execute(sql`delete from national_exclusions`);
      await db.execute(sql`delete from user_limits where user_id = 3 and field = 'session_minutes'`);
      assert.deepEqual(
        (await refusals(db)).map((row) => row.reason),
        ['self_excluded', 'self_excluded', 'limits_unset', 'limits_unset'],
      );
    } finally {
      await database.drop();
    }
  });
});
