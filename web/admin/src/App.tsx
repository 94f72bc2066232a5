import { Admin, CustomRoutes, Resource } from 'react-admin';
import { Route } from 'react-router-dom';
import { authProvider } from './authProvider.ts';
import { configCreate, configEdit, type ConfigField } from './ConfigForms.tsx';
import { Dashboard } from './Dashboard.tsx';
import { dataProvider } from './dataProvider.ts';
import { i18nProvider } from './i18n.ts';
import { IdentityList } from './Identities.tsx';
import { Layout } from './Layout.tsx';
import { LoginPage } from './LoginPage.tsx';
import { PlayerList, PlayerShow } from './Players.tsx';
import { recordList, RecordShow, type RecordScreen } from './records.tsx';
import { Reports } from './Reports.tsx';
import { Settings } from './Settings.tsx';
import { TopupConfirm } from './TopupConfirm.tsx';
import { theme } from './theme.ts';
import { TwoFactorSetup } from './TwoFactorSetup.tsx';
import { WithdrawalList } from './Withdrawals.tsx';

/** Record and configuration lists: their columns and the filters the API has for each (docs/api.md section 8). */
const SCREENS: Record<string, RecordScreen> = {
  topups: {
    columns: ['id', 'user_id', 'amount', 'status', 'payment_method_id', 'created_at'],
    filters: ['user_id', 'payment_method_id', 'status', 'gateway_payment_id'],
    rowActions: (record) => <TopupConfirm record={record} />,
  },
  transactions: {
    columns: ['id', 'user_id', 'type', 'amount', 'balance_after', 'description', 'created_at'],
    filters: ['user_id', 'balance_id', 'type', 'currency', 'reference_type', 'reference_id'],
    search: true,
  },
  bets: { columns: ['id', 'user_id', 'draw_id', 'amount', 'status', 'created_at'], filters: ['user_id', 'draw_id', 'game_id', 'status'] },
  draws: { columns: ['id', 'game_id', 'period', 'status', 'created_at'], filters: ['game_id', 'period', 'status'] },
  settlements: { columns: ['id', 'draw_id', 'created_at'], filters: ['draw_id'] },
  refunds: { columns: ['id', 'draw_id', 'created_at'], filters: ['draw_id'] },
  'provider-bets': { columns: ['id', 'user_id', 'provider_id', 'status', 'created_at'], filters: ['user_id', 'provider_id', 'status'] },
  'pix-payments': {
    columns: ['id', 'topup_id', 'amount', 'outcome', 'return_status', 'created_at'],
    filters: ['topup_id', 'payment_method_id', 'outcome', 'return_status', 'end_to_end_id'],
  },
  games: { columns: ['id', 'name', 'code', 'type', 'status', 'sort'], filters: ['status', 'type'], search: true },
  providers: { columns: ['id', 'name', 'code', 'adapter', 'status', 'sort'], filters: ['code', 'status', 'adapter'], search: true },
  'provider-games': {
    columns: ['id', 'provider_id', 'name', 'slug', 'thumbnail', 'status'],
    filters: ['provider_id', 'status', 'popular', 'category_id'],
    search: true,
  },
  'payment-methods': {
    columns: ['id', 'name', 'code', 'gateway', 'min_amount', 'max_amount', 'status'],
    filters: ['code', 'gateway', 'status'],
    search: true,
  },
  users: {
    columns: ['id', 'name', 'email', 'roles', 'status', 'created_at'],
    filters: ['email', 'status', 'is_partner', 'ref', 'role'],
    search: true,
  },
  roles: { columns: ['id', 'name', 'permissions'], filters: ['name'], search: true },
  permissions: { columns: ['id', 'name'], filters: ['name'], search: true },
  'operation-logs': { columns: ['id', 'user_id', 'method', 'path', 'ip', 'created_at'], filters: ['user_id', 'method', 'path'] },
};

/** What each configuration form edits (docs/api.md section 8's bodies); secrets are write-only. */
const FORMS: Record<string, ConfigField[]> = {
  providers: [
    { name: 'name' },
    { name: 'code' },
    { name: 'adapter' },
    { name: 'sort', kind: 'number' },
    { name: 'status', kind: 'number' },
    { name: 'wallet_secret', kind: 'secret' },
  ],
  'provider-games': [
    { name: 'provider_id', kind: 'number' },
    { name: 'name' },
    { name: 'slug' },
    { name: 'code' },
    { name: 'category_id', kind: 'number' },
    { name: 'thumbnail', kind: 'upload' },
    { name: 'sort', kind: 'number' },
    { name: 'popular', kind: 'number' },
    { name: 'status', kind: 'number' },
  ],
  games: [
    { name: 'name' },
    { name: 'code' },
    { name: 'type' },
    { name: 'status', kind: 'number' },
    { name: 'sort', kind: 'number' },
    { name: 'settings', kind: 'json' },
  ],
  'payment-methods': [
    { name: 'name' },
    { name: 'code' },
    { name: 'gateway' },
    { name: 'min_amount' },
    { name: 'max_amount' },
    { name: 'status', kind: 'number' },
    { name: 'sort', kind: 'number' },
    { name: 'config', kind: 'json' },
  ],
  users: [
    { name: 'name' },
    { name: 'email' },
    { name: 'password', kind: 'secret' },
    { name: 'roles', kind: 'list' },
    { name: 'status', kind: 'number' },
  ],
  roles: [{ name: 'name' }, { name: 'permissions', kind: 'list' }],
};
const edits = Object.fromEntries(Object.entries(FORMS).map(([name, fields]) => [name, configEdit(fields)]));
const creates = Object.fromEntries(Object.entries(FORMS).map(([name, fields]) => [name, configCreate(fields)]));

const lists = Object.fromEntries(Object.entries(SCREENS).map(([name, screen]) => [name, recordList(name, screen)]));

export function App() {
  return (
    <Admin
      title="croupier"
      dataProvider={dataProvider}
      authProvider={authProvider}
      i18nProvider={i18nProvider}
      loginPage={LoginPage}
      layout={Layout}
      theme={theme}
      dashboard={Dashboard}
      requireAuth
      disableTelemetry
    >
      <Resource name="players" list={PlayerList} show={PlayerShow} />
      <Resource name="withdrawals" list={WithdrawalList} show={RecordShow} />
      <Resource name="identities" list={IdentityList} />
      {Object.keys(SCREENS).map((name) => (
        <Resource key={name} name={name} list={lists[name]} show={RecordShow} edit={edits[name]} create={creates[name]} />
      ))}
      <Resource name="balances" />
      <CustomRoutes>
        <Route path="/settings" element={<Settings />} />
        <Route path="/reports" element={<Reports />} />
        <Route path="/two-factor" element={<TwoFactorSetup />} />
      </CustomRoutes>
    </Admin>
  );
}
