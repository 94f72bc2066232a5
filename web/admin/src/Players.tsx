import { Alert, Box, Button, Chip, Typography } from '@mui/material';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  Datagrid,
  FunctionField,
  List,
  SelectInput,
  Show,
  TextInput,
  DateInput,
  useGetList,
  useNotify,
  usePermissions,
  useRecordContext,
  useRefresh,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import { api } from '../../shared/api.ts';
import type { Access } from './access.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { csvExporter } from './csv.ts';
import { DateTime, errorMessage, Money, Value } from './format.tsx';
import { ListActions } from './records.tsx';
import { RecordsTable, RelatedList, Section } from './related.tsx';
import { parseAmount } from '../../shared/money.ts';
import { useCanManage } from './useManage.ts';

export function PlayerList() {
  const translate = useTranslate();
  const { permissions } = usePermissions<Access>();
  const filters = [
    <TextInput key="q" source="q" label={translate('app.field.search')} alwaysOn resettable />,
    <SelectInput
      key="status"
      source="status"
      label={translate('app.field.status')}
      choices={[
        { id: 1, name: translate('app.player.active') },
        { id: 0, name: translate('app.player.disabled') },
      ]}
    />,
    <TextInput key="email" source="email" label={translate('app.field.email')} />,
    <DateInput key="from" source="from" label={translate('app.field.from')} />,
    <DateInput key="to" source="to" label={translate('app.field.to')} />,
  ];
  if (permissions?.regulated === true)
    filters.push(
      <SelectInput
        key="excluded"
        source="excluded"
        label="excluded"
        choices={[
          { id: 1, name: 'yes' },
          { id: 0, name: 'no' },
        ]}
      />,
      <SelectInput
        key="identity_status"
        source="identity_status"
        label={translate('app.player.identity_status')}
        choices={['unverified', 'pending', 'verified', 'rejected'].map((status) => ({
          id: status,
          name: translate(`app.identities.status_${status}`),
        }))}
      />,
    );
  return (
    <List
      title={translate('app.menu.players')}
      filters={filters}
      filterDefaultValues={{ role: 'player' }}
      actions={<ListActions resource="players" />}
      exporter={csvExporter('players')}
      perPage={25}
    >
      <Datagrid rowClick="show" bulkActionButtons={false}>
        <FunctionField label="id" render={(r: RaRecord) => r.id} />
        <FunctionField label="name" render={(r: RaRecord) => r.name} />
        <FunctionField label={translate('app.field.email')} render={(r: RaRecord) => r.email} />
        <FunctionField
          label={translate('app.field.status')}
          render={(r: RaRecord) => translate(r.status === 1 ? 'app.player.active' : 'app.player.disabled')}
        />
        {permissions?.regulated === true && <FunctionField label="identity_status" render={(r: RaRecord) => r.identity_status} />}
        <FunctionField label="created_at" render={(r: RaRecord) => <DateTime value={r.created_at} />} />
      </Datagrid>
    </List>
  );
}

function Profile({ player }: { player: RaRecord }) {
  const translate = useTranslate();
  const refresh = useRefresh();
  const notify = useNotify();
  const allowed = useCanManage('users');
  const [signingOut, setSigningOut] = useState(false);
  const toggle = async () => {
    try {
      await api.put(`/api/admin/users/${player.id}`, { status: player.status === 1 ? 0 : 1 });
      refresh();
    } catch (error) {
      notify(errorMessage(error), { type: 'error' });
    }
  };
  return (
    <Section
      title={translate('app.player.profile')}
      actions={
        allowed && (
          <>
            <Button size="small" variant="outlined" sx={{ mr: 1 }} onClick={() => setSigningOut(true)}>
              {translate('app.action.sign_out_everywhere')}
            </Button>
            <Button size="small" variant="outlined" color={player.status === 1 ? 'error' : 'primary'} onClick={() => void toggle()}>
              {translate(player.status === 1 ? 'app.action.disable' : 'app.action.enable')}
            </Button>
          </>
        )
      }
    >
      <Typography>
        <strong>{player.name}</strong> · {player.email} · #{player.id} ·{' '}
        {translate(player.status === 1 ? 'app.player.active' : 'app.player.disabled')}
      </Typography>
      <Typography variant="body2">
        created_at: <DateTime value={player.created_at} /> · ref: {String(player.ref)} · two_factor: {String(player.two_factor_enabled)}
      </Typography>
      <Box sx={{ mt: 1, display: 'flex', gap: 1, alignItems: 'center' }}>
        <span>{translate('app.player.roles')}:</span>
        {(player.roles as string[]).map((role) => (
          <Chip key={role} size="small" label={role} />
        ))}
      </Box>
      <ConfirmDialog
        open={signingOut}
        title={translate('app.action.sign_out_everywhere')}
        fields={[]}
        onClose={() => setSigningOut(false)}
        onConfirm={async () => {
          await api.post(`/api/admin/users/${String(player.id)}/sign-out`);
          notify(translate('app.player.signed_out'), { type: 'success' });
          refresh();
        }}
      />
    </Section>
  );
}

function Identity({ player }: { player: RaRecord }) {
  const translate = useTranslate();
  const refresh = useRefresh();
  const [action, setAction] = useState<'approve' | 'reject' | undefined>();
  const allowed = useCanManage('identities');
  const { data, error } = useGetList('identities', { filter: { user_id: player.id }, pagination: { page: 1, perPage: 1 } });
  const identity = data?.[0];
  return (
    <Section title={translate('app.player.identity')}>
      {error ? (
        <Alert severity="warning">{errorMessage(error)}</Alert>
      ) : identity === undefined ? (
        <Typography variant="body2">{String(player.identity_status ?? translate('app.player.none'))}</Typography>
      ) : (
        <>
          <RecordsTable rows={[identity]} columns={['status', 'cpf', 'full_name', 'birth_date', 'reason', 'submitted_at']} />
          {identity.status === 'pending' && allowed && (
            <Box sx={{ display: 'flex', gap: 1, mt: 1 }}>
              <Button variant="outlined" onClick={() => setAction('approve')}>
                {translate('app.action.approve')}
              </Button>
              <Button variant="outlined" color="error" onClick={() => setAction('reject')}>
                {translate('app.action.reject')}
              </Button>
            </Box>
          )}
          <ConfirmDialog
            open={action !== undefined}
            title={`${action === undefined ? '' : translate(`app.action.${action}`)} — ${identity.full_name as string}`}
            fields={action === 'reject' ? [{ name: 'reason', required: true }] : []}
            onClose={() => setAction(undefined)}
            onConfirm={async (values) => {
              await api.post(
                `/api/admin/users/${player.id}/identity/${action}`,
                action === 'reject' ? { reason: values.reason } : undefined,
              );
              refresh();
            }}
          />
        </>
      )}
    </Section>
  );
}

function Limits({ player }: { player: RaRecord }) {
  const translate = useTranslate();
  if (!('limits' in player) && !('self_excluded_until' in player)) return null;
  return (
    <Section title={translate('app.player.limits')}>
      <Value field="limits" value={player.limits} />
      <Typography variant="body2">
        self_excluded_until: <DateTime value={player.self_excluded_until} /> · self_excluded_permanently:{' '}
        {String(player.self_excluded_permanently ?? false)}
      </Typography>
    </Section>
  );
}

function Balances({ player }: { player: RaRecord }) {
  const translate = useTranslate();
  const queryClient = useQueryClient();
  const [adjusting, setAdjusting] = useState<RaRecord | undefined>();
  const notify = useNotify();
  const allowed = useCanManage('balances');
  const { data, error } = useGetList('balances', { filter: { user_id: player.id }, pagination: { page: 1, perPage: 20 } });
  return (
    <Section title={translate('app.player.balances')}>
      {error ? (
        <Alert severity="warning">{errorMessage(error)}</Alert>
      ) : (
        (data ?? []).map((balance) => (
          <Box key={balance.id} sx={{ mb: 2 }}>
            <Typography sx={{ display: 'flex', gap: 2, alignItems: 'center' }}>
              <strong>
                {balance.currency as string} <Money value={balance.amount} />
              </strong>
              {allowed && (
                <Button size="small" variant="outlined" onClick={() => setAdjusting(balance)}>
                  {translate('app.action.adjust')}
                </Button>
              )}
            </Typography>
            <Ledger balanceId={balance.id} />
          </Box>
        ))
      )}
      <ConfirmDialog
        open={adjusting !== undefined}
        title={`${translate('app.action.adjust')} #${adjusting?.id ?? ''}`}
        fields={[
          { name: 'amount', required: true },
          { name: 'reason', required: true },
        ]}
        onClose={() => setAdjusting(undefined)}
        onConfirm={async (values) => {
          const amount = parseAmount(values.amount ?? '');
          if (amount === undefined) throw new Error(translate('app.field.amount'));
          await api.post(`/api/admin/balances/${adjusting!.id}/adjust`, { amount, reason: values.reason });
          notify(translate('app.player.adjusted'), { type: 'success' });
          await queryClient.invalidateQueries({ queryKey: ['balances'] });
          await queryClient.invalidateQueries({ queryKey: ['transactions'] });
        }}
      />
    </Section>
  );
}

function Ledger({ balanceId }: { balanceId: unknown }) {
  const translate = useTranslate();
  const { data } = useGetList('transactions', { filter: { balance_id: balanceId }, pagination: { page: 1, perPage: 20 } });
  return (
    <Box component="section" aria-label={translate('app.player.ledger')}>
      <Typography variant="subtitle2">{translate('app.player.ledger')}</Typography>
      <RecordsTable rows={data ?? []} columns={['id', 'type', 'amount', 'balance_after', 'description', 'created_at']} />
    </Box>
  );
}

function PlayerPage() {
  const translate = useTranslate();
  const player = useRecordContext();
  if (player === undefined) return null;
  const id = player.id;
  return (
    <Box sx={{ p: 2 }}>
      <Profile player={player} />
      <Identity player={player} />
      <Limits player={player} />
      <Balances player={player} />
      <RelatedList
        title={translate('app.player.topups')}
        resource="topups"
        filter={{ user_id: id }}
        columns={['id', 'amount', 'status', 'created_at']}
      />
      <RelatedList
        title={translate('app.player.withdrawals')}
        resource="withdrawals"
        filter={{ user_id: id }}
        columns={['id', 'amount', 'status', 'created_at']}
      />
      <RelatedList
        title={translate('app.player.bets')}
        resource="bets"
        filter={{ user_id: id }}
        columns={['id', 'draw_id', 'amount', 'status', 'created_at']}
      />
      <RelatedList
        title={translate('app.player.provider_bets')}
        resource="provider-bets"
        filter={{ user_id: id }}
        columns={['id', 'provider_id', 'stake', 'win', 'status', 'created_at']}
      />
      <RelatedList
        title={translate('app.player.referrals')}
        resource="users"
        filter={{ ref: id }}
        columns={['id', 'name', 'email', 'created_at']}
      />
      <RelatedList
        title={translate('app.player.operation_logs')}
        resource="operation-logs"
        filter={{ path: `/api/admin/users/${id}` }}
        columns={['id', 'method', 'path', 'user_id', 'created_at']}
      />
      <RelatedList
        title={translate('app.player.game_sessions')}
        resource={`users/${String(id)}/game-sessions`}
        filter={{}}
        columns={['id', 'provider.name', 'game.name', 'demo', 'open', 'created_at', 'expires_at', 'ends_at']}
      />
      <Section title={translate('app.player.sign_ins')}>
        <Typography variant="body2">{translate('app.player.not_in_api')}</Typography>
      </Section>
    </Box>
  );
}

export function PlayerShow() {
  return (
    <Show title={<PlayerTitle />}>
      <PlayerPage />
    </Show>
  );
}

function PlayerTitle() {
  const record = useRecordContext();
  return <span>{record === undefined ? '' : `${record.name as string} #${record.id}`}</span>;
}
