import { Box, Button, Card, CardContent, Chip, Typography } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  Datagrid,
  FunctionField,
  List,
  SelectInput,
  TextInput,
  useGetList,
  usePermissions,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import { api } from '../../shared/api.ts';
import type { Access } from './access.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { DateTime, Money, useLocale } from './format.tsx';
import { formatMoney, centsToDecimal } from '../../shared/money.ts';
import { ListActions } from './records.tsx';
import { csvExporter } from './csv.ts';
import { useCanManage } from './useManage.ts';

/** REGULATION=br: a prize is paid within 120 minutes of the request (docs/regulation.md). */
const PAYOUT_WINDOW_MS = 120 * 60 * 1000;

type Action = 'approve' | 'reject' | 'complete' | 'fail';
/** Which actions a status allows (docs/api.md section 8): approve from 0, reject from 0 or 1, complete and fail from 1. */
const ACTIONS: Record<number, Action[]> = { 0: ['approve', 'reject'], 1: ['complete', 'fail', 'reject'] };

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

function minutes(ms: number): string {
  const total = Math.floor(Math.abs(ms) / 60000);
  return `${Math.floor(total / 60)}h ${String(total % 60).padStart(2, '0')}m`;
}

function Summary() {
  const translate = useTranslate();
  const locale = useLocale();
  const now = useNow(30_000);
  const { data, total } = useGetList('withdrawals', {
    filter: { status: 0 },
    pagination: { page: 1, perPage: 100_000 },
    sort: { field: 'id', order: 'DESC' },
  });
  let cents = 0n;
  let oldest: number | undefined;
  for (const row of data ?? []) {
    const [whole = '0', frac = ''] = String(row.amount).replace('-', '').split('.');
    cents += BigInt(whole) * 100n + BigInt((frac + '00').slice(0, 2));
    const at = new Date(row.created_at as string).getTime();
    oldest = oldest === undefined ? at : Math.min(oldest, at);
  }
  return (
    <Card sx={{ mb: 2 }} component="section" aria-label={translate('app.withdrawals.summary')}>
      <CardContent sx={{ display: 'flex', gap: 4 }}>
        <Typography variant="h6" component="h2">
          {translate('app.withdrawals.summary')}
        </Typography>
        <span>
          {translate('app.withdrawals.count')}: <strong>{total ?? 0}</strong>
        </span>
        <span>
          {translate('app.withdrawals.total')}: <strong>{formatMoney(centsToDecimal(cents), locale)}</strong>
        </span>
        <span>
          {translate('app.withdrawals.oldest_wait')}: <strong>{oldest === undefined ? '—' : minutes(now - oldest)}</strong>
        </span>
      </CardContent>
    </Card>
  );
}

function Clock({ record }: { record: RaRecord }) {
  const translate = useTranslate();
  const now = useNow(15_000);
  if (record.status !== 0 && record.status !== 1) return null;
  const left = new Date(record.created_at as string).getTime() + PAYOUT_WINDOW_MS - now;
  return (
    <Chip
      size="small"
      color={left < 0 ? 'error' : left < 30 * 60000 ? 'warning' : 'default'}
      label={left < 0 ? `${minutes(left)} ${translate('app.withdrawals.overdue')}` : minutes(left)}
    />
  );
}

/** The row's buttons; a done action writes the API's answer into the cached lists, so the row changes in place. */
function RowActions({ record }: { record: RaRecord }) {
  const translate = useTranslate();
  const queryClient = useQueryClient();
  const [action, setAction] = useState<Action | undefined>();
  const allowed = useCanManage('withdrawals');
  const run = async (values: Record<string, string>) => {
    const body = action === 'reject' || action === 'fail' ? { reason: values.reason } : undefined;
    const answer = await api.post<{ data: RaRecord }>(`/api/admin/withdrawals/${record.id}/${action}`, body);
    const updated = answer.body.data;
    queryClient.setQueriesData({ queryKey: ['withdrawals', 'getList'] }, (old: { data?: RaRecord[] } | undefined) =>
      old?.data === undefined ? old : { ...old, data: old.data.map((row) => (row.id === updated.id ? updated : row)) },
    );
    queryClient.setQueriesData({ queryKey: ['withdrawals', 'getOne'] }, (old: RaRecord | undefined) =>
      old?.id === updated.id ? updated : old,
    );
    void queryClient.invalidateQueries({ queryKey: ['withdrawals', 'getList'], refetchType: 'none' });
  };
  return (
    <Box sx={{ display: 'flex', gap: 1 }} onClick={(event) => event.stopPropagation()}>
      {(allowed ? (ACTIONS[record.status as number] ?? []) : []).map((name) => (
        <Button
          key={name}
          size="small"
          variant="outlined"
          color={name === 'reject' || name === 'fail' ? 'error' : 'primary'}
          onClick={() => setAction(name)}
        >
          {translate(`app.action.${name}`)}
        </Button>
      ))}
      <ConfirmDialog
        open={action !== undefined}
        title={
          action === undefined
            ? ''
            : translate('app.withdrawals.confirm_title', { action: translate(`app.action.${action}`), id: record.id })
        }
        fields={action === 'reject' || action === 'fail' ? [{ name: 'reason', required: true }] : []}
        onClose={() => setAction(undefined)}
        onConfirm={run}
      />
    </Box>
  );
}

export function WithdrawalList() {
  const translate = useTranslate();
  const { permissions } = usePermissions<Access>();
  const statuses = [0, 1, 2, 3, 4].map((id) => ({ id, name: translate(`app.withdrawals.status_${id}`) }));
  return (
    <>
      <Summary />
      <List
        title={translate('app.menu.withdrawals')}
        filters={[
          <SelectInput key="status" source="status" label={translate('app.field.status')} choices={statuses} alwaysOn />,
          <TextInput key="user_id" source="user_id" label={translate('app.field.user_id')} />,
          <TextInput key="account_type" source="account_type" label="account_type" />,
        ]}
        filterDefaultValues={{ status: 0 }}
        sort={{ field: 'id', order: 'ASC' }}
        actions={<ListActions resource="withdrawals" />}
        exporter={csvExporter('withdrawals')}
        perPage={25}
      >
        <Datagrid bulkActionButtons={false} rowClick={false}>
          <FunctionField label="id" source="id" render={(r: RaRecord) => r.id} />
          <FunctionField
            label={translate('app.menu.players')}
            sortable={false}
            render={(r: RaRecord) => `${(r.player as { name?: string })?.name ?? ''} (#${r.user_id})`}
          />
          <FunctionField label={translate('app.field.amount')} sortable={false} render={(r: RaRecord) => <Money value={r.amount} />} />
          <FunctionField
            label={translate('app.field.status')}
            sortable={false}
            render={(r: RaRecord) => <span data-status={r.status}>{translate(`app.withdrawals.status_${r.status}`)}</span>}
          />
          <FunctionField label="created_at" sortable={false} render={(r: RaRecord) => <DateTime value={r.created_at} />} />
          {permissions?.regulated === true && (
            <FunctionField label={translate('app.withdrawals.time_left')} sortable={false} render={(r: RaRecord) => <Clock record={r} />} />
          )}
          <FunctionField label="" render={(r: RaRecord) => <RowActions record={r} />} />
        </Datagrid>
      </List>
    </>
  );
}
