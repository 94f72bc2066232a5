import { Table, TableBody, TableCell, TableRow } from '@mui/material';
import {
  CreateButton,
  useResourceDefinition,
  Datagrid,
  ExportButton,
  FunctionField,
  List,
  Show,
  SimpleShowLayout,
  TextInput,
  TopToolbar,
  useRecordContext,
  useTranslate,
  type RaRecord,
} from 'react-admin';
import type { ReactElement } from 'react';
import { csvExporter } from './csv.ts';
import { Value } from './format.tsx';

/** A record list of the API: its columns, and its filters (docs/api.md section 8), `q` as "Search" where it has one. */
export interface RecordScreen {
  columns: string[];
  filters: string[];
  search?: boolean;
  /** Extra row buttons (a top-up's manual confirm). */
  rowActions?: (record: RaRecord) => ReactElement | null;
  defaultFilter?: Record<string, unknown>;
}

/** One filter input per query parameter, labelled by its name; "Search" for `q`. */
export function filterInputs(screen: RecordScreen, translate: (key: string) => string) {
  const inputs = screen.filters.map((name) => <TextInput key={name} source={name} label={name} />);
  if (screen.search === true) inputs.unshift(<TextInput key="q" source="q" label={translate('app.field.search')} alwaysOn resettable />);
  return inputs;
}

/** The export reads every page of the filtered list (dataProvider.ts), not only the one shown. */
export function ListActions({ resource }: { resource: string }) {
  const translate = useTranslate();
  const { hasCreate } = useResourceDefinition({ resource });
  return (
    <TopToolbar>
      {hasCreate && <CreateButton />}
      <ExportButton maxResults={1_000_000} exporter={csvExporter(resource)} label={translate('app.action.export')} />
    </TopToolbar>
  );
}

export function recordList(resource: string, screen: RecordScreen) {
  return function RecordListScreen() {
    const translate = useTranslate();
    return (
      <List
        title={translate(`app.menu.${resource}`)}
        filters={filterInputs(screen, translate)}
        filterDefaultValues={screen.defaultFilter}
        actions={<ListActions resource={resource} />}
        exporter={csvExporter(resource)}
        sort={{ field: 'id', order: 'DESC' }}
        perPage={25}
      >
        <Datagrid rowClick="show" bulkActionButtons={false} sort={{ field: 'id', order: 'DESC' }}>
          {screen.columns.map((column) => (
            <FunctionField
              key={column}
              label={column}
              sortable={false}
              render={(record: RaRecord) => <Value field={column} value={record[column]} />}
            />
          ))}
          {screen.rowActions !== undefined && <FunctionField label="" render={(record: RaRecord) => screen.rowActions!(record)} />}
        </Datagrid>
      </List>
    );
  };
}

/** Every field of a record, as the API gave it. */
export function RecordFields() {
  const record = useRecordContext();
  if (record === undefined) return null;
  return (
    <Table size="small">
      <TableBody>
        {Object.entries(record).map(([field, value]) => (
          <TableRow key={field}>
            <TableCell component="th" scope="row" sx={{ fontWeight: 600, width: 220 }}>
              {field}
            </TableCell>
            <TableCell>
              <Value field={field} value={value} />
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

export function RecordShow() {
  return (
    <Show>
      <SimpleShowLayout>
        <RecordFields />
      </SimpleShowLayout>
    </Show>
  );
}
