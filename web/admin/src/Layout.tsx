import { Box, Button } from '@mui/material';
import type { ReactNode } from 'react';
import {
  AppBar,
  Layout as RaLayout,
  Menu,
  RefreshIconButton,
  TitlePortal,
  useGetIdentity,
  useLogout,
  usePermissions,
  useTranslate,
} from 'react-admin';
import { can, type Access } from './access.ts';
import { LanguageSelect } from './LanguageSelect.tsx';
import { NoAccess } from './NoAccess.tsx';
import { TwoFactorSetup } from './TwoFactorSetup.tsx';

/** The menu: the contract's link names, each shown only when its screen's first read is allowed. */
const MENU = [
  'players',
  'withdrawals',
  'identities',
  'topups',
  'transactions',
  'bets',
  'draws',
  'settlements',
  'refunds',
  'provider-bets',
  'pix-payments',
  'games',
  'providers',
  'provider-games',
  'payment-methods',
  'settings',
  'users',
  'roles',
  'permissions',
  'operation-logs',
  'reports',
];

function AppMenu() {
  const translate = useTranslate();
  const { permissions } = usePermissions<Access>();
  return (
    <Menu>
      {can(permissions, 'dashboard') && <Menu.Item to="/" primaryText={translate('app.menu.dashboard')} />}
      {MENU.filter((name) => can(permissions, name)).map((name) => (
        <Menu.Item key={name} to={`/${name}`} primaryText={translate(`app.menu.${name}`)} />
      ))}
    </Menu>
  );
}

function Bar() {
  const { identity } = useGetIdentity();
  const translate = useTranslate();
  const logout = useLogout();
  return (
    <AppBar
      userMenu={false}
      toolbar={
        <Box sx={{ display: 'flex', gap: 2, alignItems: 'center' }}>
          <span style={{ fontSize: 14 }}>{identity?.fullName}</span>
          <LanguageSelect color="#fff" />
          <RefreshIconButton />
          <Button color="inherit" onClick={() => void logout()}>
            {translate('app.action.sign_out')}
          </Button>
        </Box>
      }
    >
      <TitlePortal />
    </AppBar>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const { permissions, isPending } = usePermissions<Access>();
  if (isPending || permissions === undefined) return null;
  if (permissions.twoFactorRequired) return <TwoFactorSetup />;
  if (permissions.noAccess) return <NoAccess />;
  return (
    <RaLayout appBar={Bar} menu={AppMenu}>
      {children}
    </RaLayout>
  );
}
