import { Button } from '@mui/material';
import { useState } from 'react';
import { useRefresh, useTranslate, type RaRecord } from 'react-admin';
import { api } from '../../shared/api.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { useCanManage } from './useManage.ts';

/** A pending top-up credited by hand (docs/api.md section 8, "confirm"): the same code path as a gateway's confirmation. */
export function TopupConfirm({ record }: { record: RaRecord }) {
  const translate = useTranslate();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  const allowed = useCanManage('topups');
  if (record.status !== 0 || !allowed) return null;
  return (
    <span onClick={(event) => event.stopPropagation()}>
      <Button size="small" variant="outlined" onClick={() => setOpen(true)}>
        {translate('app.action.confirm')}
      </Button>
      <ConfirmDialog
        open={open}
        title={`${translate('app.menu.topups')} #${record.id}`}
        fields={[]}
        onClose={() => setOpen(false)}
        onConfirm={async () => {
          await api.post(`/api/admin/topups/${record.id}/confirm`);
          refresh();
        }}
      />
    </span>
  );
}
