import { plain } from '../../shared/text.ts';
import { Alert, Box, Button, ButtonGroup, Card, CardContent, TextField, Typography } from '@mui/material';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Title, useTranslate } from 'react-admin';
import { useSearchParams } from 'react-router-dom';
import { api } from '../../shared/api.ts';
import { addDays, saoPauloDay } from '../../shared/dates.ts';
import { formatMoney } from '../../shared/money.ts';
import { errorMessage, useLocale, Value } from './format.tsx';
import { RecordsTable, Section } from './related.tsx';

/** Charts are the heaviest part (recharts): loaded when the dashboard draws them, not with the first page. */
const Charts = lazy(() => import('./Charts.tsx'));

export const TOTALS = [
  'registrations',
  'first_time_depositors',
  'deposits',
  'paid_withdrawals',
  'net_deposits',
  'stakes',
  'wins',
  'refunds',
  'ggr',
] as const;
const COUNTS = new Set(['registrations', 'first_time_depositors']);
/** The queues' names as the stats route may give them (contract section 16: withdrawals to review, identities and top-ups pending). */
const QUEUE_LABELS: Record<string, string> = {
  withdrawals: 'app.dashboard.withdrawals_to_review',
  withdrawals_to_review: 'app.dashboard.withdrawals_to_review',
  identities: 'app.dashboard.identities_pending',
  identities_pending: 'app.dashboard.identities_pending',
  topups: 'app.dashboard.topups_pending',
  topups_pending: 'app.dashboard.topups_pending',
};

export interface Stats {
  totals: Record<string, string | number>;
  previous: Record<string, string | number>;
  daily: ({ date: string } & Record<string, string | number>)[];
  by_game: Record<string, unknown>[];
  by_provider: Record<string, unknown>[];
  queues: Record<string, unknown>;
}

function range(period: string, from: string | null, to: string | null): { from: string; to: string } {
  const today = saoPauloDay();
  if (period === 'range' && from !== null && to !== null) return { from, to };
  if (period === '7') return { from: addDays(today, -6), to: today };
  if (period === '30') return { from: addDays(today, -29), to: today };
  return { from: today, to: today };
}

function change(now: number, before: number): string {
  if (before === 0) return now === 0 ? '0%' : '—';
  const percent = ((now - before) / Math.abs(before)) * 100;
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(1)}%`;
}

/** The period lives in the URL (?period=7, or ?period=range&from=&to=), so a view of the dashboard is a link. */
export function Dashboard() {
  const translate = useTranslate();
  const locale = useLocale();
  const [params, setParams] = useSearchParams();
  const period = params.get('period') ?? 'today';
  const days = range(period, params.get('from'), params.get('to'));
  const [stats, setStats] = useState<Stats | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    let live = true;
    setError(undefined);
    api
      .get<{ data: Stats }>(`/api/admin/stats?from=${days.from}&to=${days.to}`)
      .then((answer) => live && setStats(answer.body.data))
      .catch((caught: unknown) => live && (setStats(undefined), setError(errorMessage(caught))));
    return () => {
      live = false;
    };
  }, [days.from, days.to]);

  const show = (key: string, value: unknown) => (COUNTS.has(key) ? plain(value ?? 0) : formatMoney(value as string, locale));
  const queues = stats?.queues ?? {};
  return (
    <Box sx={{ p: 2 }}>
      <Title title={translate('app.dashboard.title')} />
      <Box
        component="section"
        aria-label={translate('app.dashboard.period')}
        sx={{ display: 'flex', gap: 2, alignItems: 'center', mb: 2, flexWrap: 'wrap' }}
      >
        <ButtonGroup>
          {[
            ['today', 'app.dashboard.today'],
            ['7', 'app.dashboard.days7'],
            ['30', 'app.dashboard.days30'],
          ].map(([value, label]) => (
            <Button
              key={value}
              variant={period === value ? 'contained' : 'outlined'}
              onClick={() => setParams({ period: value! })}
              aria-pressed={period === value}
            >
              {translate(label!)}
            </Button>
          ))}
        </ButtonGroup>
        <TextField
          type="date"
          size="small"
          label={translate('app.field.from')}
          value={days.from}
          onChange={(e) => setParams({ period: 'range', from: e.target.value, to: days.to })}
          slotProps={{ inputLabel: { shrink: true } }}
        />
        <TextField
          type="date"
          size="small"
          label={translate('app.field.to')}
          value={days.to}
          onChange={(e) => setParams({ period: 'range', from: days.from, to: e.target.value })}
          slotProps={{ inputLabel: { shrink: true } }}
        />
      </Box>
      {error !== undefined && (
        <Alert severity="warning" role="alert">
          {translate('app.dashboard.unavailable')}: {error}
        </Alert>
      )}
      {stats !== undefined && (
        <>
          <Box sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(200px, 1fr))', gap: 2, mb: 2 }}>
            {TOTALS.map((key) => (
              <Card key={key} component="section" aria-label={translate(`app.dashboard.${key}`)}>
                <CardContent>
                  <Typography component="h2" variant="body2" color="text.secondary">
                    {translate(`app.dashboard.${key}`)}
                  </Typography>
                  <Typography variant="h5">{show(key, stats.totals[key])}</Typography>
                  <Typography variant="caption">
                    {change(Number(stats.totals[key] ?? 0), Number(stats.previous[key] ?? 0))} {translate('app.dashboard.vs_previous')}
                  </Typography>
                </CardContent>
              </Card>
            ))}
          </Box>
          <Section title={translate('app.dashboard.queues')}>
            {Object.entries(queues).map(([key, value]) => (
              <Typography key={key}>
                {QUEUE_LABELS[key] === undefined ? key : translate(QUEUE_LABELS[key])}:{' '}
                {value !== null && typeof value === 'object' ? (
                  Object.entries(value as Record<string, unknown>).map(([field, item]) => (
                    <span key={field} style={{ marginRight: 12 }}>
                      {field}: <Value field={field} value={item} />
                    </span>
                  ))
                ) : (
                  <strong>{plain(value)}</strong>
                )}
              </Typography>
            ))}
          </Section>
          <Section title={translate('app.dashboard.daily')}>
            <Suspense fallback={<Typography>{translate('app.common.loading')}</Typography>}>
              <Charts
                daily={stats.daily}
                keys={TOTALS.filter((key) => !COUNTS.has(key))}
                label={(key) => translate(`app.dashboard.${key}`)}
              />
            </Suspense>
          </Section>
          <Section title={translate('app.dashboard.by_game')}>
            <RecordsTable rows={stats.by_game.map((row, i) => ({ id: i, ...row }))} columns={Object.keys(stats.by_game[0] ?? {})} />
          </Section>
          <Section title={translate('app.dashboard.by_provider')}>
            <RecordsTable rows={stats.by_provider.map((row, i) => ({ id: i, ...row }))} columns={Object.keys(stats.by_provider[0] ?? {})} />
          </Section>
        </>
      )}
    </Box>
  );
}
