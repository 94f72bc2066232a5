import { Button } from '@mui/material';
import { useState } from 'react';
import { usePermissions, useRefresh, useTranslate, type RaRecord } from 'react-admin';
import type { Access } from './access.ts';
import { api } from '../../shared/api.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { useCanManage } from './useManage.ts';

/** A pending top-up credited by hand (docs/api.md section 8, "confirm"): the same code path as a gateway's confirmation. */
export function TopupConfirm({ record }: { record: RaRecord }) {
  const translate = useTranslate();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  const allowed = useCanManage('topups');
  // REGULATION=br: a top-up is paid only from the player's own CPF, which confirm must name (docs/api.md section 8).
  const { permissions } = usePermissions<Access>();
  const regulated = permissions?.regulated === true;
  if (record.status !== 0 || !allowed) return null;
  return (
    <span onClick={(event) => event.stopPropagation()}>
      <Button size="small" variant="outlined" onClick={() => setOpen(true)}>
        {translate('app.action.confirm')}
      </Button>
      <ConfirmDialog
        open={open}
        title={`${translate('app.menu.topups')} #${record.id}`}
        fields={regulated ? [{ name: 'payer_cpf', required: true }] : []}
        onClose={() => setOpen(false)}
        onConfirm={async (values) => {
          await api.post(`/api/admin/topups/${record.id}/confirm`, regulated ? { payer_cpf: values.payer_cpf } : undefined);
          refresh();
        }}
      />
    </span>
  );
}
