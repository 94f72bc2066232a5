import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { failureWords, FileArgumentError, isFileSystemError, makeDirectory } from '../../platform/file-arguments.ts';
import { formatUnits } from '../../platform/money.ts';
import type { DailyReport } from './daily.ts';

type Cell = string | number | bigint | Date | null;

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. Money as units ("12.50"). */
function csv(header: string[], rows: Cell[][]): string {
  const cell = (value: Cell) => {
    const text =
      typeof value === 'bigint' ? formatUnits(value) : value instanceof Date ? value.toISOString() : value === null ? '' : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [header, ...rows].map((row) => `${row.map(cell).join(',')}\r\n`).join('');
}

export interface ManifestFile {
  name: string;
  /** Data rows, the header not counted. */
  rows: number;
  sha256: string;
}

export interface Manifest {
  date: string;
  files: ManifestFile[];
}

/** The report's CSV files, by name, with their data rows. */
export function reportFiles(report: DailyReport): { name: string; rows: number; text: string }[] {
  const files: [string, string[], Cell[][]][] = [
    [
      'bettors.csv',
      ['user_id', 'cpf', 'full_name', 'bets', 'stake', 'win', 'refund'],
      report.bettors.map((row) => [row.userId, row.cpf, row.fullName, row.bets, row.stake, row.win, row.refund]),
    ],
    [
      'bets.csv',
      ['source', 'bet_id', 'user_id', 'provider', 'game', 'stake', 'win', 'refund'],
      report.bets.map((row) => [row.source, row.betId, row.userId, row.provider, row.game, row.stake, row.win, row.refund]),
    ],
    [
      'topups.csv',
      ['topup_id', 'user_id', 'gateway', 'amount', 'gift'],
      report.topups.map((row) => [row.topupId, row.userId, row.gateway, row.amount, row.gift]),
    ],
    [
      'withdrawals.csv',
      ['withdrawal_id', 'user_id', 'status', 'requested', 'returned'],
      report.withdrawals.map((row) => [row.withdrawalId, row.userId, row.status, row.requested, row.returned]),
    ],
    [
      'ggr.csv',
      ['source', 'provider', 'game', 'stake', 'win', 'refund', 'ggr'],
      report.games.map((row) => [row.source, row.provider, row.game, row.stake, row.win, row.refund, row.ggr]),
    ],
    [
      'other_lines.csv',
      ['line_id', 'user_id', 'type', 'amount', 'reference_type', 'reference_id', 'created_at'],
      report.otherRows.map((row) => [row.lineId, row.userId, row.type, row.amount, row.referenceType, row.referenceId, row.createdAt]),
    ],
    [
      'returned_payments.csv',
      ['end_to_end_id', 'topup_id', 'user_id', 'amount', 'paid_at', 'reason', 'return_status', 'returned_at'],
      report.returnedPayments.map((row) => [
        row.endToEndId,
        row.topupId,
        row.userId,
        row.amount,
        row.paidAt,
        row.reason,
        row.returnStatus,
        row.returnedAt,
      ]),
    ],
  ];
  return files.map(([name, header, rows]) => ({ name, rows: rows.length, text: csv(header, rows) }));
}

/** Writes `bytes` to `file`; a refusal of the file system (a full disk, a read-only mount) is one FileArgumentError. */
async function writeReportFile(file: string, bytes: Buffer | string): Promise<void> {
  try {
    await writeFile(file, bytes, { mode: 0o600 });
  } catch (error) {
    if (!isFileSystemError(error)) throw error;
    throw new FileArgumentError(`Cannot write ${file}: ${failureWords(error)}.`);
  }
}

/**
 * Writes the CSV files and `manifest.json` (`{"date", "files": [{"name", "rows", "sha256"}]}`)
 * into `dir`, created if missing (src/platform/file-arguments.ts); files of the same names are
 * replaced. The manifest is written last, so a directory with a manifest has every file it names.
 */
export async function writeReport(report: DailyReport, dir: string): Promise<Manifest> {
  await makeDirectory(dir, 0o700);
  const manifest: Manifest = { date: report.date, files: [] };
  for (const file of reportFiles(report)) {
    const bytes = Buffer.from(file.text, 'utf8');
    await writeReportFile(join(dir, file.name), bytes);
    manifest.files.push({ name: file.name, rows: file.rows, sha256: createHash('sha256').update(bytes).digest('hex') });
  }
  await writeReportFile(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
