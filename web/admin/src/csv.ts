import { plain } from '../../shared/text.ts';
import type { RaRecord } from 'react-admin';

function cell(value: unknown): string {
  const text = plain(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Records as CSV: every field the API gave, in its order, nested values as JSON. */
export function toCsv(records: RaRecord[]): string {
  const columns: string[] = [];
  for (const record of records) for (const key of Object.keys(record)) if (!columns.includes(key)) columns.push(key);
  const lines = [
    columns.join(','),
    ...records.map((record) => columns.map((column) => cell((record as Record<string, unknown>)[column])).join(',')),
  ];
  return `${lines.join('\r\n')}\r\n`;
}

export function download(name: string, text: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** react-admin's exporter: the whole filtered list (the data provider read every page), as one file. */
export function csvExporter(resource: string) {
  return (records: RaRecord[]) => download(`${resource}.csv`, toCsv(records));
}
