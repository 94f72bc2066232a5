import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { preparePlaceBet, type PlaceBetStatement, type PlaceOutcomeRow } from '../../src/modules/draws/repository.ts';
import { games } from '../../src/modules/games/tables.ts';
import type { Clock } from '../../src/platform/clock.ts';
import { rows, type Db } from '../../src/platform/db/client.ts';
import type { Client, Response, TestApp } from '../helpers/app.ts';

/** The draw games' clock in tests: time moves only when the test says so. */
export class ManualClock implements Clock {
  #at: number;

  constructor(start: string | Date) {
    this.#at = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#at);
  }

  set(at: string | Date): Date {
    this.#at = new Date(at).getTime();
    return this.now();
  }

  advance(ms: number): Date {
    this.#at += ms;
    return this.now();
  }
}

let games_made = 0;

/** An in-house game, written straight into `games` as the admin games resource would. */
export async function insertGame(
  db: Db,
  values: { type: string; settings?: Record<string, unknown>; status?: number; code?: string; sort?: number },
): Promise<{ id: number; code: string }> {
  games_made += 1;
  const code = values.code ?? `${values.type}-${process.pid}-${games_made}`;
  const [row] = await db
    .insert(games)
    .values({
      name: `Game ${code}`,
      code,
      type: values.type,
      status: values.status ?? 1,
      sort: values.sort ?? 0,
      settings: values.settings ?? {},
    })
    .returning({ id: games.id, code: games.code });
  return row!;
}

export interface Bet {
  id: number;
  draw_id: number;
  period: string;
  selection: string;
  amount: number;
  odds: number;
  status: number;
  payout: number | null;
  settled_at: string | null;
  [key: string]: unknown;
}

export interface Draw {
  id: number;
  period: string;
  status: number;
  seed_hash: string;
  server_seed: string | null;
  result: Record<string, unknown> | null;
  winning: string[] | null;
  closes_at: string;
  draw_at: string;
  closes_in?: number;
  draws_in?: number;
  [key: string]: unknown;
}

export async function placeBet(
  client: Client,
  game: string | number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return client.post(`/api/games/${game}/bets`, body, headers);
}

export async function betOk(client: Client, game: string | number, selection: string, amount: number | string): Promise<Bet> {
  const res = await placeBet(client, game, { selection, amount });
  assert.equal(res.status, 201, res.text);
  return (res.json as { data: Bet }).data;
}

export async function openDraw(client: Client, game: string | number): Promise<Draw> {
  const res = await client.get(`/api/games/${game}`);
  assert.equal(res.status, 200, res.text);
  const draw = (res.json as { data: { draw: Draw | null } }).data.draw;
  assert.ok(draw !== null, 'the game has an open draw');
  return draw;
}

export function errorsOf(res: Response): Record<string, string[]> {
  return (res.json as { errors: Record<string, string[]> }).errors;
}

export async function count(db: Db, query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await rows<{ n: number | string }>(db, query);
  return Number(row!.n);
}

export async function winLines(t: TestApp, betId: number): Promise<number> {
  return count(
    t.db,
    sql`select count(*) as n from ledger_entries where type = 'win' and reference_type = 'draw_bet' and reference_id = ${betId}`,
  );
}

/** docs/draws.md, "Game types": each selection's winning outcomes and default odds. */
export const DOCUMENTED: Record<string, [string, number, number][]> = {
  dice3: [
    ['big', 105, 2],
    ['small', 105, 2],
    ['odd', 105, 2],
    ['even', 105, 2],
    ['sum_4', 3, 61],
    ['sum_5', 6, 31],
    ['sum_6', 10, 18],
    ['sum_7', 15, 13],
    ['sum_8', 21, 9],
    ['sum_9', 25, 7],
    ['sum_10', 27, 7],
    ['sum_11', 27, 7],
    ['sum_12', 25, 7],
    ['sum_13', 21, 9],
    ['sum_14', 15, 13],
    ['sum_15', 10, 18],
    ['sum_16', 6, 31],
    ['sum_17', 3, 61],
    ['any_triple', 6, 31],
    ...[1, 2, 3, 4, 5, 6].map((face): [string, number, number] => [`triple_${face}`, 1, 181]),
  ],
  double: [
    ['red', 7, 2],
    ['black', 7, 2],
    ['white', 1, 14],
  ],
};

type PlaceBetParams = NonNullable<Parameters<PlaceBetStatement['execute']>[0]>;

/**
 * A bet straight through `place_draw_bet`, without the service's checks of the game's settings
 * (any odds): 1.00 on red of a `double` game with the settings `{}`, in BRL, unless told otherwise.
 */
export async function placeDrawBet(
  db: Db,
  bet: Pick<PlaceBetParams, 'userId' | 'gameId' | 'drawId' | 'now'> & Partial<PlaceBetParams>,
  regulated = false,
): Promise<PlaceOutcomeRow> {
  const [row] = await preparePlaceBet(db, regulated).execute({
    gameType: 'double',
    gameSettings: '{}',
    selection: 'red',
    amount: 100n,
    odds: 200,
    currency: 'BRL',
    requestKey: null,
    requestDigest: null,
    ...bet,
  });
  return row!;
}
