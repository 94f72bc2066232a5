import { Alert, Box, Button, Card, CardContent, TextField, Typography } from '@mui/material';
import { useState, type FormEvent } from 'react';
import { useLogin, useTranslate } from 'react-admin';
import { api, csrfCookie } from '../../shared/api.ts';
import { errorMessage } from './format.tsx';
import { LanguageSelect } from './LanguageSelect.tsx';

/** The API's sign-in (docs/api.md section 6): e-mail and password, then the two-factor code when the account has it. */
export function LoginPage() {
  const translate = useTranslate();
  const login = useLogin();
  const [step, setStep] = useState<'password' | 'code'>('password');
  const [recovery, setRecovery] = useState(false);
  const [values, setValues] = useState({ email: '', password: '', code: '' });
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (step === 'password') {
        await csrfCookie();
        const answer = await api.post<{ two_factor?: boolean }>('/api/login', { email: values.email, password: values.password });
        if (answer.body?.two_factor === true) {
          setStep('code');
          return;
        }
      } else {
        await api.post('/api/two-factor-challenge', recovery ? { recovery_code: values.code.trim() } : { code: values.code.trim() });
      }
      await login({});
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Box component="main" sx={{ minHeight: '100vh', display: 'flex', alignItems: 'center', justifyContent: 'center', bgcolor: '#eef1f5' }}>
      <Card sx={{ width: 380 }}>
        <CardContent>
          <Box component="form" onSubmit={(event) => void submit(event)} sx={{ display: 'flex', flexDirection: 'column', gap: 2 }}>
            <Typography component="h1" variant="h5">
              croupier
            </Typography>
            {step === 'password' ? (
              <>
                <TextField
                  label={translate('app.field.email')}
                  type="email"
                  autoComplete="username"
                  value={values.email}
                  onChange={(event) => setValues({ ...values, email: event.target.value })}
                  required
                  autoFocus
                />
                <TextField
                  label={translate('app.field.password')}
                  type="password"
                  autoComplete="current-password"
                  value={values.password}
                  onChange={(event) => setValues({ ...values, password: event.target.value })}
                  required
                />
              </>
            ) : (
              <>
                <Typography>{translate('app.auth.two_factor_prompt')}</Typography>
                <TextField
                  label={translate(recovery ? 'app.auth.recovery_code' : 'app.field.code')}
                  autoComplete="one-time-code"
                  inputMode={recovery ? 'text' : 'numeric'}
                  value={values.code}
                  onChange={(event) => setValues({ ...values, code: event.target.value })}
                  required
                  autoFocus
                />
                <Button size="small" onClick={() => setRecovery(!recovery)}>
                  {translate('app.auth.recovery')}
                </Button>
              </>
            )}
            {error !== undefined && (
              <Alert severity="error" role="alert">
                {error}
              </Alert>
            )}
            <Button type="submit" variant="contained" disabled={busy}>
              {translate('app.action.sign_in')}
            </Button>
            <LanguageSelect />
          </Box>
        </CardContent>
      </Card>
    </Box>
  );
}
