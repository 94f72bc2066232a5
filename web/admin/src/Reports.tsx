import { plain } from '../../shared/text.ts';
import { Alert, Box, Button, TextField } from '@mui/material';
import { useEffect, useState } from 'react';
import { Title, useTranslate } from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { api } from '../../shared/api.ts';
import { saoPauloDay } from '../../shared/dates.ts';
import { download } from './csv.ts';
import { errorMessage, Value } from './format.tsx';
import { Section } from './related.tsx';

/** The daily report (docs/api.md section 14): one São Paulo day's totals, the day in the URL. */
export function Reports() {
  const translate = useTranslate();
  const [params, setParams] = useSearchParams();
  const date = params.get('date') ?? saoPauloDay();
  const [totals, setTotals] = useState<Record<string, unknown> | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setError(undefined);
    api
      .get<{ data: Record<string, unknown> }>(`/api/admin/reports/daily?date=${date}`)
      .then((answer) => setTotals(answer.body.data))
      .catch((caught: unknown) => (setTotals(undefined), setError(errorMessage(caught))));
  }, [date]);
  const csv = () => {
    if (totals === undefined) return;
    const flat = Object.entries(totals).map(
      ([key, value]) => `${key},${typeof value === 'object' ? JSON.stringify(plain(value)) : plain(value)}`,
    );
    download(`report-${date}.csv`, `field,value\r\n${flat.join('\r\n')}\r\n`);
  };
  return (
    <Box sx={{ p: 2 }}>
      <Title title={translate('app.reports.title')} />
      <Box sx={{ display: 'flex', gap: 2, mb: 2 }}>
        <TextField
          type="date"
          size="small"
          label={translate('app.field.date')}
          value={date}
          onChange={(e) => setParams({ date: e.target.value })}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        <Button variant="outlined" onClick={csv} disabled={totals === undefined}>
          {translate('app.action.download_csv')}
        </Button>
      </Box>
      {error !== undefined && <Alert severity="warning">{error}</Alert>}
      {totals !== undefined && (
        <Section title={date}>
          {Object.entries(totals).map(([key, value]) => (
            <div key={key}>
              <strong>{key}</strong>: <Value field={key} value={value} />
            </div>
          ))}
        </Section>
      )}
    </Box>
  );
}
