import { Box, Button } from '@mui/material';
import { useState } from 'react';
import { Datagrid, FunctionField, List, SelectInput, TextInput, useRefresh, useTranslate, type RaRecord } from 'react-admin';
import { api } from '../../shared/api.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { csvExporter } from './csv.ts';
import { DateTime } from './format.tsx';
import { ListActions } from './records.tsx';
import { useCanManage } from './useManage.ts';

function Decide({ record }: { record: RaRecord }) {
  const translate = useTranslate();
  const refresh = useRefresh();
  const [action, setAction] = useState<'approve' | 'reject' | undefined>();
  const allowed = useCanManage('identities');
  if (record.status !== 'pending' || !allowed) return null;
  return (
    <Box sx={{ display: 'flex', gap: 1 }} onClick={(event) => event.stopPropagation()}>
      <Button size="small" variant="outlined" onClick={() => setAction('approve')}>
        {translate('app.action.approve')}
      </Button>
      <Button size="small" variant="outlined" color="error" onClick={() => setAction('reject')}>
        {translate('app.action.reject')}
      </Button>
      <ConfirmDialog
        open={action !== undefined}
        title={`${action === undefined ? '' : translate(`app.action.${action}`)} — ${record.full_name as string}`}
        fields={action === 'reject' ? [{ name: 'reason', required: true }] : []}
        onClose={() => setAction(undefined)}
        onConfirm={async (values) => {
          await api.post(
            `/api/admin/users/${record.user_id}/identity/${action}`,
            action === 'reject' ? { reason: values.reason } : undefined,
          );
          refresh();
        }}
      />
    </Box>
  );
}

/** The identity queue: pending first (the default filter); approve, or reject with a reason. */
export function IdentityList() {
  const translate = useTranslate();
  const statuses = ['pending', 'verified', 'rejected'].map((id) => ({ id, name: translate(`app.identities.status_${id}`) }));
  return (
    <List
      title={translate('app.menu.identities')}
      filters={[
        <SelectInput key="status" source="status" label={translate('app.field.status')} choices={statuses} alwaysOn />,
        <TextInput key="user_id" source="user_id" label={translate('app.field.user_id')} />,
        <TextInput key="cpf" source="cpf" label="cpf" />,
      ]}
      filterDefaultValues={{ status: 'pending' }}
      actions={<ListActions resource="identities" />}
      exporter={csvExporter('identities')}
      perPage={25}
    >
      <Datagrid bulkActionButtons={false} rowClick={(_id, _resource, record) => `/players/${record.user_id}/show`}>
        <FunctionField label="user_id" render={(r: RaRecord) => r.user_id} />
        <FunctionField label="full_name" render={(r: RaRecord) => r.full_name} />
        <FunctionField label="cpf" render={(r: RaRecord) => r.cpf} />
        <FunctionField label="birth_date" render={(r: RaRecord) => r.birth_date} />
        <FunctionField label={translate('app.field.status')} render={(r: RaRecord) => translate(`app.identities.status_${r.status}`)} />
        <FunctionField label="submitted_at" render={(r: RaRecord) => <DateTime value={r.submitted_at} />} />
        <FunctionField label="" render={(r: RaRecord) => <Decide record={r} />} />
      </Datagrid>
    </List>
  );
}
