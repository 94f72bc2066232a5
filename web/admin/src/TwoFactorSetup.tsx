import { Alert, Box, Button, Card, CardContent, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { api, ApiError } from '../../shared/api.ts';
import { forgetAccess } from './access.ts';
import { errorMessage } from './format.tsx';

/**
 * ADMIN_TWO_FACTOR=required: staff without confirmed two-factor set it up here before anything
 * else, with the account routes (docs/api.md section 6): enable, the QR code, confirm with a code.
 * Those routes want the password confirmed recently (423), asked for here when they do.
 */
export function TwoFactorSetup() {
  const translate = useTranslate();
  const [qr, setQr] = useState<string | undefined>();
  const [needsPassword, setNeedsPassword] = useState(false);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();

  const start = async () => {
    setError(undefined);
    try {
      await api.post('/api/user/two-factor-authentication');
      const answer = await api.get<{ svg?: string }>('/api/user/two-factor-qr-code');
      setQr(answer.body.svg);
      setNeedsPassword(false);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 423) setNeedsPassword(true);
      else setError(errorMessage(caught));
    }
  };
  useEffect(() => {
    void start();
  }, []);

  const confirmPassword = async () => {
    try {
      await api.post('/api/user/confirm-password', { password });
      await start();
    } catch (caught) {
      setError(errorMessage(caught));
    }
  };
  const confirm = async () => {
    try {
      await api.post('/api/user/confirmed-two-factor-authentication', { code: code.trim() });
      forgetAccess();
      window.location.assign('/admin/');
    } catch (caught) {
      setError(errorMessage(caught));
    }
  };

  return (
    <Box component="main" sx={{ display: 'flex', justifyContent: 'center', p: 4 }}>
      <Card sx={{ maxWidth: 480 }}>
        <CardContent sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
          <Typography component="h1" variant="h5">
            {translate('app.auth.setup_title')}
          </Typography>
          {needsPassword ? (
            <>
              <Typography>{translate('app.auth.setup_password')}</Typography>
              <TextField
                label={translate('app.field.password')}
                type="password"
                value={password}
                onChange={(event) => setPassword(event.target.value)}
              />
              <Button variant="contained" onClick={() => void confirmPassword()}>
                {translate('app.action.confirm')}
              </Button>
            </>
          ) : (
            <>
              <Typography>{translate('app.auth.setup_intro')}</Typography>
              {qr !== undefined && (
                <img alt="QR code" width={200} height={200} src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(qr)}`} />
              )}
              <TextField
                label={translate('app.field.code')}
                inputMode="numeric"
                value={code}
                onChange={(event) => setCode(event.target.value)}
              />
              <Button variant="contained" onClick={() => void confirm()}>
                {translate('app.action.confirm')}
              </Button>
            </>
          )}
          {error !== undefined && (
            <Alert severity="error" role="alert">
              {error}
            </Alert>
          )}
        </CardContent>
      </Card>
    </Box>
  );
}
