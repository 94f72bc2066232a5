import { Alert, Table, TableBody, TableCell, TableHead, TableRow, Typography, Paper } from '@mui/material';
import type { ReactNode } from 'react';
import { useGetList, useTranslate, type RaRecord } from 'react-admin';
import { errorMessage, Value } from './format.tsx';

/** A section of a page: its heading (the accessible name of the region) and content. */
export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <Paper component="section" aria-label={title} sx={{ p: 2, mb: 2 }}>
      <Typography component="h2" variant="h6" sx={{ display: 'flex', justifyContent: 'space-between', mb: 1 }}>
        {title}
        <span>{actions}</span>
      </Typography>
      {children}
    </Paper>
  );
}

/** A column's value; `provider.name` reads a nested record's field. */
function valueAt(row: RaRecord, column: string): unknown {
  return column.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | null | undefined)?.[key], row);
}

export function RecordsTable({ rows, columns, extra }: { rows: RaRecord[]; columns: string[]; extra?: (row: RaRecord) => ReactNode }) {
  const translate = useTranslate();
  if (rows.length === 0) return <Typography variant="body2">{translate('app.common.empty')}</Typography>;
  return (
    <Table size="small">
      <TableHead>
        <TableRow>
          {columns.map((column) => (
            <TableCell key={column}>{column}</TableCell>
          ))}
          {extra !== undefined && <TableCell />}
        </TableRow>
      </TableHead>
      <TableBody>
        {rows.map((row) => (
          <TableRow key={String(row.id)}>
            {columns.map((column) => (
              <TableCell key={column}>
                <Value field={column} value={valueAt(row, column)} />
              </TableCell>
            ))}
            {extra !== undefined && <TableCell>{extra(row)}</TableCell>}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** The newest records of a list for one filter (a player's top-ups, bets, …); a refusal shows the API's message. */
export function RelatedList({
  title,
  resource,
  filter,
  columns,
}: {
  title: string;
  resource: string;
  filter: Record<string, unknown>;
  columns: string[];
}) {
  const { data, error, isPending } = useGetList(resource, {
    filter,
    pagination: { page: 1, perPage: 10 },
    sort: { field: 'id', order: 'DESC' },
  });
  return (
    <Section title={title}>
      {error ? (
        <Alert severity="warning">{errorMessage(error)}</Alert>
      ) : isPending ? null : (
        <RecordsTable rows={data ?? []} columns={columns} />
      )}
    </Section>
  );
}
