import { Button, Dialog, DialogActions, DialogContent, DialogTitle, TextField, Alert } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { errorMessage } from './format.tsx';

export interface ConfirmField {
  name: 'reason' | 'amount' | 'payer_cpf';
  required: boolean;
}

/**
 * An action confirmed in a dialog: its button "Confirm" goes ahead, its fields are "Reason" and
 * "Amount" (contract section 16); a refusal from the API stays in the dialog as its message.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  fields: ConfirmField[];
  onClose: () => void;
  onConfirm: (values: Record<string, string>) => Promise<void>;
}) {
  const translate = useTranslate();
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const missing = props.fields.some((field) => field.required && (values[field.name] ?? '').trim() === '');
  const close = () => {
    setValues({});
    setError(undefined);
    props.onClose();
  };
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm(values);
      setValues({});
      props.onClose();
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={props.open} onClose={close} aria-labelledby="confirm-title">
      <DialogTitle id="confirm-title">{props.title}</DialogTitle>
      <DialogContent>
        {props.fields.map((field) => (
          <TextField
            key={field.name}
            label={translate(`app.field.${field.name}`)}
            value={values[field.name] ?? ''}
            onChange={(event) => setValues({ ...values, [field.name]: event.target.value })}
            required={field.required}
            fullWidth
            margin="dense"
            autoFocus={field === props.fields[0]}
          />
        ))}
        {error !== undefined && (
          <Alert severity="error" role="alert" sx={{ mt: 1 }}>
            {error}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={close}>{translate('app.action.cancel')}</Button>
        <Button variant="contained" onClick={() => void confirm()} disabled={busy || missing}>
          {translate('app.action.confirm')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
