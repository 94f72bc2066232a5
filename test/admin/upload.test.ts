import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import { useApp, type Client } from '../helpers/app.ts';
import { countLogs, lastLog } from './support.ts';

const DATA_DIR = `/tmp/croupier-upload-test-${process.pid}`;

function chunk(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A valid 2x2 RGB PNG, built the way an encoder writes one. */
function png(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB
  const pixels = Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function multipart(field: string, filename: string, type: string, content: Buffer): { body: Buffer; headers: Record<string, string> } {
  const boundary = '----croupier' + Math.random().toString(16).slice(2);
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function upload(client: Client, field: string, filename: string, type: string, content: Buffer) {
  const form = multipart(field, filename, type, content);
  return client.post('/api/admin/upload', form.body, form.headers);
}

describe('admin upload', () => {
  const ctx = useApp({ DATA_DIR, UPLOAD_MAX_BYTES: '2048', APP_URL: 'https://api.example.test' });
  after(() => rm(DATA_DIR, { recursive: true, force: true }));

  test('a real PNG is stored under uploads/<yyyy>/<mm>/ and served with its type and long caching', async () => {
    const { client } = await ctx().withRole('super-admin');
    const image = png();
    const res = await upload(client, 'file', 'photo.png', 'image/png', image);
    assert.equal(res.status, 200);
    const { url, path } = res.json as { url: string; path: string };
    const now = new Date();
    const month = String(now.getUTCMonth() + 1).padStart(2, '0');
    assert.match(path, new RegExp(`^uploads/${now.getUTCFullYear()}/${month}/[A-Za-z0-9]{40}\\.png$`));
    assert.equal(url, `https://api.example.test/storage/${path}`);
    assert.ok(existsSync(join(DATA_DIR, path)));

    const served = await ctx().client().get(`/storage/${path}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers['content-type'], 'image/png');
    assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(served.headers['x-content-type-options'], 'nosniff');
    assert.equal(Number(served.headers['content-length']), image.length);

    const log = await lastLog(ctx());
    assert.equal(log.path, '/api/admin/upload');
    assert.deepEqual(log.payload, { file: { name: 'photo.png', size: image.length, type: 'image/png' }, path });
  });

  test('the type comes from the content: a GIF named .png is stored as .gif, a script named .png is refused', async () => {
    const { client } = await ctx().withRole('super-admin');
    const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
    const asGif = await upload(client, 'file', 'fake.png', 'image/png', gif);
    assert.equal(asGif.status, 200);
    assert.match((asGif.json as { path: string }).path, /\.gif$/);

    const logs = await countLogs(ctx());
    const disguised = await upload(client, 'file', 'evil.png', 'image/png', Buffer.from('<script>alert(1)</script>'));
    assert.equal(disguised.status, 422);
    assert.deepEqual(disguised.json, {
      message: 'The file field must be a file of type: png, jpeg, webp, gif.',
      errors: { file: ['The file field must be a file of type: png, jpeg, webp, gif.'] },
    });
    const svg = await upload(
      client,
      'file',
      'x.svg',
      'image/svg+xml',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>1</script></svg>'),
    );
    assert.equal(svg.status, 422);
    assert.equal(await countLogs(ctx()), logs);
  });

  test('a file over UPLOAD_MAX_BYTES is a 422 on file; a body far over it is a 413', async () => {
    const { client } = await ctx().withRole('super-admin');
    const big = Buffer.concat([png(), Buffer.alloc(4096)]);
    const res = await upload(client, 'file', 'big.png', 'image/png', big);
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      message: 'The file field must not be greater than 2 kilobytes.',
      errors: { file: ['The file field must not be greater than 2 kilobytes.'] },
    });
    const huge = await upload(client, 'file', 'huge.png', 'image/png', Buffer.alloc(2 * 1024 * 1024));
    assert.equal(huge.status, 413);
  });

  test('no file field is a 422 saying it is required', async () => {
    const { client } = await ctx().withRole('super-admin');
    const wrongField = await upload(client, 'image', 'photo.png', 'image/png', png());
    assert.deepEqual(wrongField.json, { message: 'The file field is required.', errors: { file: ['The file field is required.'] } });
    const json = await client.post('/api/admin/upload', {});
    assert.equal(json.status, 422);
  });

  test('uploading needs uploads.manage; a guest is 401 and a player 403', async () => {
    const guest = ctx().client();
    await guest.csrf();
    assert.equal((await upload(guest, 'file', 'a.png', 'image/png', png())).status, 401);
    const player = await ctx().player();
    assert.equal((await upload(player.client, 'file', 'a.png', 'image/png', png())).status, 403);
  });

  test('storage serves nothing outside the uploaded files: traversal and other names are 404', async () => {
    const client = ctx().client();
    for (const path of [
      '/storage/app.key',
      '/storage/../app.key',
      '/storage/uploads/../app.key',
      '/storage/uploads/%2e%2e/app.key',
      '/storage/uploads/2026/11/..%2F..%2F..%2Fapp.key',
      '/storage/uploads/2026/11/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.png',
      '/storage/uploads/2026/11/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.svg',
    ]) {
      const res = await client.get(path);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.json, { message: 'Not found.' });
    }
  });
});
