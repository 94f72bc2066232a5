// Issue 21: `croupier pix:webhook` and `croupier pix:reconcile` as an operator runs them, from
// the real command line: beside a running server on PostgreSQL, carried out by the server that
// holds the embedded database otherwise (docs/api.md section 11).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { backend } from '../helpers/database.ts';
import { Browser, run, scratch, serve, type Server } from '../helpers/cli.ts';
import { CLIENT, KEY, PAYER, pixApiConfig, pki } from './helpers.ts';
import { PspSimulator } from './simulator/psp.ts';

describe('pix commands', () => {
  const { target } = scratch('croupier-pix-commands-');
  let sim: PspSimulator;
  let server: Server;
  let where: Record<string, string>;
  const webhookToken = 'webhook-token-commands-0123';

  before(async () => {
    sim = await PspSimulator.start({ pki: pki(), keys: [KEY], client: CLIENT });
    where = {
      ...(await target()),
      APP_KEY: randomBytes(32).toString('base64'),
      APP_URL: 'https://casino.example',
      // The server's own reconciliation stays off: the command is what is tested.
      PIX_RECONCILE_S: '0',
    };
    server = await serve(where);
  });
  after(async () => {
    await server?.stop();
    await sim?.stop();
  });

  const carriedBy = (stderr: string) => {
    if (backend === 'pglite') assert.match(stderr, /^Carried out by the server \(process \d+\) holding the embedded database/);
  };

  test('pix:webhook registers the URL with the PSP and pix:reconcile credits a payment no notification brought', async () => {
    const created = await run(['admin:create', '--email', 'ops@example.com', '--password', 'a long password'], where);
    assert.equal(created.code, 0, created.stderr);
    const operator = new Browser(server.url);
    await operator.call('GET', '/api/csrf-cookie');
    assert.equal((await operator.call('POST', '/api/login', { email: 'ops@example.com', password: 'a long password' })).status, 200);
    const method = await operator.call('POST', '/api/admin/payment-methods', {
      name: 'PSP',
      code: 'pix-psp',
      gateway: 'pix-api',
      min_amount: 1,
      max_amount: 1000,
      config: pixApiConfig(sim, { webhook_token: webhookToken }),
    });
    assert.equal(method.status, 201, method.text);
    const methodId = (JSON.parse(method.text) as { data: { id: number } }).data.id;

    const registered = await run(['pix:webhook', 'pix-psp'], where);
    assert.equal(registered.code, 0, registered.stderr);
    carriedBy(registered.stderr);
    assert.equal(sim.webhooks.get(KEY)?.url, `https://casino.example/api/webhooks/pix/pix-psp?token=${webhookToken}&ignorar=`);
    assert.match(
      registered.stdout,
      /the PSP notifies https:\/\/casino\.example\/api\/webhooks\/pix\/pix-psp\?token=\[redacted\]&ignorar=\/pix/,
    );
    assert.ok(!registered.stdout.includes(webhookToken) && !registered.stderr.includes(webhookToken), 'the token is never printed');

    const player = new Browser(server.url);
    await player.call('GET', '/api/csrf-cookie');
    const password = 'a long enough password';
    const signedUp = await player.call('POST', '/api/register', {
      name: 'Player',
      email: 'player@example.com',
      password,
      password_confirmation: password,
      agreement: true,
    });
    assert.equal(signedUp.status, 201, signedUp.text);
    const topup = await player.call('POST', '/api/topups', { payment_method_id: methodId, amount: 25 });
    assert.equal(topup.status, 201, topup.text);
    const { id, gateway_payment_id: txid } = (JSON.parse(topup.text) as { data: { id: number; gateway_payment_id: string } }).data;
    sim.pay(txid, PAYER);

    const reconciled = await run(['pix:reconcile'], where);
    assert.equal(reconciled.code, 0, reconciled.stderr);
    carriedBy(reconciled.stderr);
    assert.match(reconciled.stdout, /pix-psp: .* 1 payment\(s\) listed, 1 credited, 0 returned/);
    const list = JSON.parse((await player.call('GET', '/api/topups')).text) as { data: { id: number; status: number }[] };
    assert.deepEqual(
      list.data.map((item) => [item.id, item.status]),
      [[id, 1]],
    );

    // Again, over an explicit window: nothing more is credited.
    const again = await run(
      ['pix:reconcile', '--from', new Date(Date.now() - 3_600_000).toISOString(), '--to', new Date(Date.now() + 60_000).toISOString()],
      where,
    );
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /1 payment\(s\) listed, 0 credited/);
    const verified = await run(['ledger:verify'], where);
    assert.equal(verified.code, 0, verified.stderr);
  });

  test('bad arguments are a usage error, and an unknown method is said in one line', async () => {
    assert.equal((await run(['pix:webhook'], where)).code, 2);
    assert.equal((await run(['pix:reconcile', '--from', 'yesterday'], where)).code, 2);
    assert.equal((await run(['pix:reconcile', '--to', '2026-11-28'], where)).code, 2);
    const unknown = await run(['pix:webhook', 'no-such-method'], where);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No payment method "no-such-method" with a pix-api or efi gateway/);
  });
});
