import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { sql } from 'drizzle-orm';
import { one, transaction, type Db } from '../../platform/db/client.ts';
import { failureWords, FileArgumentError, isFileSystemError } from '../../platform/file-arguments.ts';

/** CPFs per insert: one array parameter each, so a million lines are 20 statements. */
const BATCH = 50_000;

export class NationalListError extends Error {
  override readonly name = 'UsageError';
}

/**
 * `croupier exclusions:import FILE` (docs/api.md section 14, docs/regulation.md): the
 * government's central self-exclusion list, one CPF a line (punctuation and blank lines
 * ignored), replaces the list last imported, in one transaction: every check sees either the old
 * list or the new one, never half of it. A line that is not 11 digits stops the import before
 * anything changes (the line number is given). The file is read as a stream and sent in batches
 * of array parameters (`unnest`), which both databases take alike; duplicates count once.
 */
export async function importNationalList(db: Db, file: string): Promise<{ cpfs: number }> {
  const batches = await readBatches(file);
  return transaction(
    db,
    async (tx) => {
      // Lock the list for the swap: a second import at once waits for this one.
      await tx.execute(sql`lock table national_exclusions in exclusive mode`);
      await tx.execute(sql`delete from national_exclusions`);
      for (const cpfs of batches) {
        await tx.execute(sql`insert into national_exclusions (cpf) select unnest(${sql.param(cpfs)}::text[]) on conflict do nothing`);
      }
      const row = await one<{ n: number }>(tx, sql`select count(*)::integer as n from national_exclusions`);
      return { cpfs: Number(row!.n) };
    },
    1,
  );
}

/** The file's CPFs in batches; a file that cannot be read (gone, a directory, an I/O error) is one FileArgumentError. */
async function readBatches(file: string): Promise<string[][]> {
  const batches: string[][] = [];
  let batch: string[] = [];
  let line = 0;
  try {
    const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const text of lines) {
      line += 1;
      const digits = text.replace(/[.\-\s]/g, '');
      if (digits === '') continue;
      if (!/^[0-9]{11}$/.test(digits)) throw new NationalListError(`Line ${line} of ${file} is not a CPF (11 digits).`);
      batch.push(digits);
      if (batch.length === BATCH) {
        batches.push(batch);
        batch = [];
      }
    }
  } catch (error) {
    if (!isFileSystemError(error)) throw error;
    throw new FileArgumentError(`Cannot read ${file}: ${failureWords(error)}.`);
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
