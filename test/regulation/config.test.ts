import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

const base = () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), 'croupier-regulation-')), APP_KEY: Buffer.alloc(32, 3).toString('base64') });

test('REGULATION is none by default, br when set, and anything else stops the start naming it', () => {
  assert.equal(loadConfig(base()).regulation, 'none');
  assert.equal(loadConfig({ ...base(), REGULATION: 'br' }).regulation, 'br');
  assert.equal(loadConfig({ ...base(), REGULATION: ' none ' }).regulation, 'none');
  assert.throws(
    () => loadConfig({ ...base(), REGULATION: 'BR' }),
    (error: unknown) => error instanceof ConfigError && error.message === 'Invalid REGULATION: expected none or br, got "BR".',
  );
});

test('REGULATION=br: idle sessions end after 30 minutes at most (SESSION_LIFETIME_MIN defaults to 30, more stops the start)', () => {
  assert.equal(loadConfig({ ...base(), REGULATION: 'br' }).sessionLifetimeMin, 30);
  assert.equal(loadConfig({ ...base(), REGULATION: 'br', SESSION_LIFETIME_MIN: '15' }).sessionLifetimeMin, 15);
  assert.throws(() => loadConfig({ ...base(), REGULATION: 'br', SESSION_LIFETIME_MIN: '120' }), ConfigError);
  assert.equal(loadConfig(base()).sessionLifetimeMin, 120);
});
