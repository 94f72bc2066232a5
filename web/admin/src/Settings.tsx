import { Alert, Box, Button, TextField } from '@mui/material';
import { useEffect, useState } from 'react';
import { Title, useNotify, useTranslate } from 'react-admin';
import { api } from '../../shared/api.ts';
import { errorMessage } from './format.tsx';
import { Section } from './related.tsx';

const GROUPS = ['referral', 'topup', 'withdraw', 'games', 'payouts'];

function Group({ name }: { name: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    api
      .get<{ data: unknown }>(`/api/admin/settings/${name}`)
      .then((answer) => setText(JSON.stringify(answer.body.data, null, 2)))
      .catch((caught: unknown) => setError(errorMessage(caught)));
  }, [name]);
  const save = async () => {
    setError(undefined);
    try {
      const answer = await api.put<{ data: unknown }>(`/api/admin/settings/${name}`, JSON.parse(text));
      setText(JSON.stringify(answer.body.data, null, 2));
      notify(translate('app.common.done'), { type: 'success' });
    } catch (caught) {
      setError(errorMessage(caught));
    }
  };
  return (
    <Section title={name}>
      <TextField
        label={name}
        multiline
        minRows={4}
        fullWidth
        value={text}
        onChange={(e) => setText(e.target.value)}
        slotProps={{ htmlInput: { style: { fontFamily: 'monospace' } } }}
      />
      {error !== undefined && <Alert severity="warning">{error}</Alert>}
      <Button sx={{ mt: 1 }} variant="outlined" onClick={() => void save()}>
        {translate('ra.action.save')}
      </Button>
    </Section>
  );
}

/** Settings (docs/api.md section 10): each group as the API holds it, edited and saved whole. */
export function Settings() {
  const translate = useTranslate();
  return (
    <Box sx={{ p: 2 }}>
      <Title title={translate('app.menu.settings')} />
      {GROUPS.map((name) => (
        <Group key={name} name={name} />
      ))}
    </Box>
  );
}
