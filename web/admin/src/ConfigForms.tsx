import { Alert, Box, Button, Typography } from '@mui/material';
import { useState, type ChangeEvent } from 'react';
import { useFormContext, useWatch } from 'react-hook-form';
import { Create, Edit, NumberInput, PasswordInput, SimpleForm, TextInput, useTranslate } from 'react-admin';
import { request } from '../../shared/api.ts';
import { plain } from '../../shared/text.ts';
import { errorMessage } from './format.tsx';

/**
 * A configuration field (docs/api.md section 8): text, a number, a write-only secret (never
 * shown, sent only when typed), JSON (settings, a gateway's configuration), a list of names
 * (a user's roles, a role's permissions) or an uploaded image's path (a game's thumbnail).
 */
export interface ConfigField {
  name: string;
  kind?: 'text' | 'number' | 'secret' | 'json' | 'list' | 'upload';
  required?: boolean;
}

/** The form's values as the API takes them: JSON parsed, lists split, empty secrets left out so the stored one stays. */
function toBody(fields: ConfigField[]) {
  return (values: Record<string, unknown>) => {
    const body: Record<string, unknown> = {};
    for (const field of fields) {
      const value = values[field.name];
      if (field.kind === 'secret') {
        if (typeof value === 'string' && value !== '') body[field.name] = value;
      } else if (field.kind === 'json') {
        // Edited, the field holds the text typed; untouched, the value as the API gave it.
        if (typeof value === 'string' && value.trim() !== '') body[field.name] = JSON.parse(value);
        else if (value !== undefined && value !== null && typeof value === 'object') body[field.name] = value;
      } else if (field.kind === 'list') {
        body[field.name] = Array.isArray(value)
          ? value
          : plain(value)
              .split(',')
              .map((item) => item.trim())
              .filter((item) => item !== '');
      } else if (value !== undefined) body[field.name] = value;
    }
    return body;
  };
}

/** A thumbnail: POST /api/admin/upload (multipart), then the returned `path` is the field's value. */
function UploadInput({ name }: { name: string }) {
  const { setValue } = useFormContext();
  const value = useWatch({ name }) as string | null | undefined;
  const [error, setError] = useState<string | undefined>();
  const upload = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file === undefined) return;
    const form = new FormData();
    form.append('file', file);
    try {
      const answer = await request<{ path: string; url: string }>('POST', '/api/admin/upload', { body: form });
      setValue(name, answer.body.path, { shouldDirty: true });
      setError(undefined);
    } catch (caught) {
      setError(errorMessage(caught));
    }
  };
  return (
    <Box sx={{ mb: 2 }}>
      <Typography variant="body2">{name}</Typography>
      {typeof value === 'string' && value !== '' && (
        <img src={`/storage/${value.replace(/^\/+/, '')}`} alt={name} style={{ maxHeight: 80, display: 'block' }} />
      )}
      <Button component="label" variant="outlined" size="small">
        {name}
        <input hidden type="file" accept="image/png,image/jpeg,image/gif,image/webp" onChange={(event) => void upload(event)} />
      </Button>
      {error !== undefined && <Alert severity="error">{error}</Alert>}
    </Box>
  );
}

function inputs(fields: ConfigField[], creating: boolean) {
  return fields.map((field) => {
    switch (field.kind) {
      case 'number':
        return <NumberInput key={field.name} source={field.name} label={field.name} />;
      case 'secret':
        return (
          <PasswordInput
            key={field.name}
            source={field.name}
            label={field.name}
            helperText={creating ? undefined : 'write-only: leave empty to keep'}
            defaultValue=""
          />
        );
      case 'json':
        return (
          <TextInput
            key={field.name}
            source={field.name}
            label={field.name}
            multiline
            minRows={3}
            format={(value: unknown) =>
              typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value, null, 2)
            }
            parse={(text: string) => text}
          />
        );
      case 'list':
        return (
          <TextInput
            key={field.name}
            source={field.name}
            label={field.name}
            format={(value: unknown) => (Array.isArray(value) ? value.join(', ') : ((value as string) ?? ''))}
          />
        );
      case 'upload':
        return <UploadInput key={field.name} name={field.name} />;
      case 'text':
      case undefined:
        return <TextInput key={field.name} source={field.name} label={field.name} required={field.required} />;
    }
  });
}

export function configEdit(fields: ConfigField[]) {
  return function ConfigEdit() {
    return (
      <Edit mutationMode="pessimistic" transform={toBody(fields)}>
        <SimpleForm>{inputs(fields, false)}</SimpleForm>
      </Edit>
    );
  };
}

export function configCreate(fields: ConfigField[]) {
  return function ConfigCreate() {
    const translate = useTranslate();
    return (
      <Create transform={toBody(fields)} title={translate('ra.action.create')}>
        <SimpleForm>{inputs(fields, true)}</SimpleForm>
      </Create>
    );
  };
}
