import { dice3 } from './dice3.ts';
import { double } from './double.ts';
import type { GameType } from './game-type.ts';

/** Every draw game type, by the `type` an in-house game names. */
export const GAME_TYPES: ReadonlyMap<string, GameType> = new Map([dice3, double].map((type) => [type.code, type]));

export function gameType(code: string): GameType | undefined {
  return GAME_TYPES.get(code);
}
