import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { TOPUP_STATUSES } from '../../src/modules/topups/repository.ts';
import { WITHDRAWAL_STATUSES } from '../../src/modules/withdrawals/tables.ts';
import type { StatusCodes } from '../../src/platform/status.ts';

/**
 * docs/api.md's record table says what each status code means; a code the service stores that
 * the table leaves out (top-up 4, returned, was) is one a reader of the API cannot interpret.
 */
const api = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

/** The record table's row for `record` (`| Top-up | … |`). */
function rowOf(record: string): string {
  const row = api.split('\n').find((line) => line.startsWith(`| ${record} |`));
  assert.ok(row !== undefined, `docs/api.md has a ${record} row`);
  return row;
}

function codesOf(statuses: StatusCodes<string>): [number, string][] {
  return Object.entries(statuses.code).map(([name, code]) => [code, name]);
}

describe('docs/api.md lists every status code', () => {
  for (const [record, statuses] of [
    ['Top-up', TOPUP_STATUSES],
    ['Withdrawal', WITHDRAWAL_STATUSES],
  ] as const) {
    test(`${record}: every code with its name`, () => {
      const row = rowOf(record);
      const missing = codesOf(statuses).filter(([code, name]) => !new RegExp(`\\b${code} ${name}\\b`).test(row));
      assert.deepEqual(missing, [], `${record} codes docs/api.md does not name`);
    });
  }
});
