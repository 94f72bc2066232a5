import { Box, Button, Typography } from '@mui/material';
import { useLogout, useTranslate } from 'react-admin';

/** A signed-in account without any admin permission sees this and nothing else (contract section 16). */
export function NoAccess() {
  const translate = useTranslate();
  const logout = useLogout();
  return (
    <Box component="main" sx={{ p: 6, textAlign: 'center' }}>
      <Typography component="h1" variant="h6">
        {translate('app.auth.no_access')}
      </Typography>
      <Button sx={{ mt: 2 }} onClick={() => void logout()}>
        {translate('app.action.sign_out')}
      </Button>
    </Box>
  );
}
