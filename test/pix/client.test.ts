// Issue 21, items 2 and 8: the API Pix client against the PSP simulator, over real mutual TLS.
// No database is involved; the file runs once per backend like every other.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { after, before, describe, test } from 'node:test';
import { PixApiClient } from '../../src/modules/payments/pix-api/client.ts';
import { checkPixConfig, type PixApiConfig } from '../../src/modules/payments/pix-api/config.ts';
import { PixApiError } from '../../src/modules/payments/pix-api/errors.ts';
import { certificateAuthority, testPki } from './pki.ts';
import { PspSimulator, type Flavour } from './simulator/psp.ts';

const KEY = '123e4567-e12b-12d1-a456-426655440000';
const PAYER = { cpf: '12345678909', name: 'Fulano de Tal' };
const pki = testPki();

function configFor(sim: PspSimulator, overrides: Record<string, unknown> = {}, gateway: 'pix-api' | 'efi' = 'pix-api'): PixApiConfig {
  const publicPart = { base_url: sim.baseUrl, client_id: 'croupier', ca: pki.ca.certificate, pix_key: KEY, ...overrides };
  const checked = checkPixConfig(
    gateway,
    publicPart,
    { client_secret: 's3cret-s3cret', certificate: pki.client.certificate, private_key: pki.client.privateKey },
    new Date(),
  );
  if ('errors' in checked) throw new Error(JSON.stringify(checked.errors));
  return checked.config;
}

async function simulator(flavour: Flavour = 'standard'): Promise<PspSimulator> {
  return PspSimulator.start({ pki, flavour, keys: [KEY], client: { id: 'croupier', secret: 's3cret-s3cret' } });
}

describe('API Pix client', () => {
  let sim: PspSimulator;
  let client: PixApiClient;
  before(async () => {
    sim = await simulator();
    client = new PixApiClient(configFor(sim));
  });
  after(async () => {
    client.close();
    await sim.stop();
    assert.deepEqual(sim.drift, [], 'the simulator answered only what the spec allows');
  });

  test('creates a charge, reads it back paid, and reads the payment by its endToEndId', async () => {
    const txid = 'crpclienttest0000000000000001';
    const charge = await client.createCharge({ txid, amount: 12_345n, expiresIn: 600, message: 'Top-up #1' });
    assert.deepEqual([charge.txid, charge.status, charge.amount, charge.key, charge.expiresIn], [txid, 'ATIVA', 12_345n, KEY, 600]);
    assert.match(charge.copyAndPaste!, /^000201/);
    const paid = sim.pay(txid, PAYER);
    const read = await client.charge(txid);
    assert.equal(read.status, 'CONCLUIDA');
    assert.deepEqual(
      read.payments.map((p) => [p.endToEndId, p.amount]),
      [[paid.endToEndId, 12_345n]],
    );
    const payment = await client.payment(paid.endToEndId);
    assert.deepEqual([payment.txid, payment.amount, payment.payer], [txid, 12_345n, undefined]);
  });

  test('the same txid asked again is the same charge', async () => {
    const txid = 'crpclienttest0000000000000002';
    const first = await client.createCharge({ txid, amount: 500n, expiresIn: 600, message: 'x' });
    const again = await client.createCharge({ txid, amount: 500n, expiresIn: 600, message: 'x' });
    assert.deepEqual([again.txid, again.amount, again.createdAt.getTime()], [first.txid, first.amount, first.createdAt.getTime()]);
  });

  test('every call, the token request included, presents the client certificate', async () => {
    sim.calls.length = 0;
    await client.createCharge({ txid: 'crpclienttest0000000000000003', amount: 100n, expiresIn: 600, message: 'x' });
    await client.registerWebhook('https://casino.example/api/webhooks/pix/pix-inter');
    assert.ok(sim.calls.length >= 2);
    for (const call of sim.calls) assert.equal(call.clientCertificate, 'croupier client', `${call.method} ${call.path}`);
  });

  test('a connection without a client certificate is refused by the simulator', async () => {
    const before = sim.tlsRefusals;
    const outcome = await new Promise<string>((resolve) => {
      const req = request(`${sim.baseUrl}/cob/x`, { ca: pki.ca.certificate, method: 'GET' }, (res) => {
        res.resume();
        resolve(`answered ${res.statusCode}`);
      });
      req.on('error', (error) => resolve(`refused: ${error.message}`));
      req.end();
    });
    assert.match(outcome, /^refused/);
    assert.equal(sim.tlsRefusals, before + 1);
  });

  test('a certificate from a CA the PSP does not trust is refused', async () => {
    const stranger = certificateAuthority('stranger CA').issue({ commonName: 'stranger', use: 'client' });
    const config = { ...configFor(sim), certificate: stranger.certificate, privateKey: stranger.privateKey };
    const other = new PixApiClient(config);
    await assert.rejects(other.charge('crpclienttest0000000000000001'), (error: PixApiError) => error.failure === 'network');
    other.close();
  });

  test('one token serves many calls, and concurrent first calls share one token request', async () => {
    const fresh = new PixApiClient(configFor(sim));
    const issued = sim.tokensIssued;
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fresh.createCharge({ txid: `crpclientconcurrent00000000${i}0`, amount: 100n, expiresIn: 600, message: 'x' }),
      ),
    );
    await fresh.charge('crpclientconcurrent0000000000');
    assert.equal(sim.tokensIssued, issued + 1);
    fresh.close();
  });

  test('a token the PSP no longer accepts is refreshed once and the call goes through', async () => {
    await client.charge('crpclienttest0000000000000001');
    const issued = sim.tokensIssued;
    sim.expireTokens();
    const read = await client.charge('crpclienttest0000000000000001');
    assert.equal(read.txid, 'crpclienttest0000000000000001');
    assert.equal(sim.tokensIssued, issued + 1);
  });

  test('an RFC 7807 problem becomes an error carrying its type, title and violations, and no token', async () => {
    const error = await client.createCharge({ txid: 'short', amount: 100n, expiresIn: 600, message: 'x' }).then(
      () => assert.fail('a txid of 5 characters was accepted'),
      (caught: unknown) => caught as PixApiError,
    );
    assert.ok(error instanceof PixApiError);
    assert.equal(error.failure, 'problem');
    assert.equal(error.status, 400);
    assert.equal(error.outcomeUnknown, false);
    const logged = error.loggable();
    assert.equal(logged.type, 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida');
    assert.deepEqual(
      (logged.violacoes as { propriedade: string }[]).map((v) => v.propriedade),
      ['cob.txid'],
    );
    assert.ok(!JSON.stringify(logged).includes('Bearer') && !JSON.stringify(logged).includes('s3cret'));
  });

  test('a PSP that is down is an error whose outcome is unknown', async () => {
    sim.failNext(1, 503);
    await assert.rejects(
      client.charge('crpclienttest0000000000000001'),
      (error: PixApiError) => error.status === 503 && error.outcomeUnknown,
    );
  });

  test('a PSP that does not answer in time is a timeout, not a hang', async () => {
    const impatient = new PixApiClient(configFor(sim), { timeoutMs: 300 });
    sim.outage = 'hang';
    try {
      await assert.rejects(
        impatient.charge('crpclienttest0000000000000001'),
        (error: PixApiError) => error.failure === 'timeout' && error.outcomeUnknown,
      );
    } finally {
      sim.outage = undefined;
      sim.releaseHung();
      impatient.close();
    }
  });

  test('a read whose kept-alive connection the PSP dropped is sent again on a new one; a write is left unknown', async () => {
    const txid = 'crpclienttest0000000000000009';
    // After this call the connection is kept alive, and the next call is sent on it.
    await client.createCharge({ txid, amount: 700n, expiresIn: 600, message: 'x' });
    sim.loseAnswers(1, (method, path) => method === 'GET' && path.endsWith(txid));
    const read = await client.charge(txid);
    assert.deepEqual([read.txid, read.amount], [txid, 700n]);
    sim.loseAnswers(1, (method, path) => method === 'PUT' && path.endsWith(txid));
    await assert.rejects(
      client.createCharge({ txid, amount: 700n, expiresIn: 600, message: 'x' }),
      (error: PixApiError) => error.failure === 'network' && error.outcomeUnknown,
    );
  });

  test('a success whose body is not the spec’s record is an unexpected answer', async () => {
    sim.route('GET', '/v2/cob/crpbrokenanswer00000000000001', () => ({ status: 200, body: { txid: 'crpbrokenanswer00000000000001' } }), {
      scope: 'cob.read',
    });
    await assert.rejects(client.charge('crpbrokenanswer00000000000001'), (error: PixApiError) => error.failure === 'unexpected');
  });

  test('lists received payments page by page, filtered by the payer’s CPF', async () => {
    const txid = 'crpclientlist0000000000000001';
    await client.createCharge({ txid, amount: 700n, expiresIn: 600, message: 'x' });
    const mine = sim.pay(txid, PAYER);
    sim.transfer(KEY, 300n, { cpf: '11144477735', name: 'Outra Pessoa' });
    const window = { from: new Date(Date.now() - 60_000), to: new Date(Date.now() + 60_000) };
    const page = await client.received({ ...window, page: 0, cpf: PAYER.cpf });
    assert.ok(page.items.some((item) => item.endToEndId === mine.endToEndId));
    assert.ok(page.items.every((item) => item.endToEndId !== undefined && item.amount > 0n));
    const small = await client.received({ ...window, page: 0, perPage: 1 });
    assert.ok(small.pages >= 2);
  });

  test('asks for a return once per id, and reads it back', async () => {
    const txid = 'crpclientreturn00000000000001';
    await client.createCharge({ txid, amount: 1000n, expiresIn: 600, message: 'x' });
    const paid = sim.pay(txid, PAYER);
    const asked = await client.requestReturn(paid.endToEndId, 'R1', 1000n, 'Devolução');
    assert.deepEqual([asked.id, asked.amount, asked.status], ['R1', 1000n, 'EM_PROCESSAMENTO']);
    await assert.rejects(client.requestReturn(paid.endToEndId, 'R1', 1000n, 'x'), (error: PixApiError) => error.status === 400);
    sim.settleReturn(paid.endToEndId, 'R1', 'DEVOLVIDO');
    assert.equal((await client.return(paid.endToEndId, 'R1')).status, 'DEVOLVIDO');
  });

  test('registers and reads the webhook URL; the generic request reaches paths beside the base', async () => {
    await client.registerWebhook('https://casino.example/api/webhooks/pix/pix-inter?token=abc&ignorar=');
    assert.equal(await client.webhook(), 'https://casino.example/api/webhooks/pix/pix-inter?token=abc&ignorar=');
    sim.route('GET', '/v3/gn/ping', () => ({ status: 200, body: { ok: true } }), { scope: 'pix.read' });
    assert.deepEqual(await client.request({ method: 'GET', originPath: '/v3/gn/ping' }), { status: 200, body: { ok: true } });
  });
});

describe('API Pix client, Efí flavour and form credentials', () => {
  test('Efí: HTTP Basic with a JSON body, and the payer from gnExtras', async () => {
    const sim = await simulator('efi');
    const client = new PixApiClient(configFor(sim, {}, 'efi'));
    try {
      const txid = 'crpclientefi00000000000000001';
      await client.createCharge({ txid, amount: 250n, expiresIn: 600, message: 'x' });
      const paid = sim.pay(txid, PAYER);
      assert.deepEqual((await client.payment(paid.endToEndId)).payer, { cpf: PAYER.cpf, cnpj: undefined, name: PAYER.name });
      assert.equal(sim.tokensIssued, 1);
    } finally {
      client.close();
      await sim.stop();
    }
    assert.deepEqual(sim.drift, []);
  });

  test('token_auth body: the credentials go in the form, not in a Basic header', async () => {
    const sim = await simulator();
    const client = new PixApiClient(configFor(sim, { token_auth: 'body' }));
    try {
      await client.createCharge({ txid: 'crpclientbody0000000000000001', amount: 250n, expiresIn: 600, message: 'x' });
      assert.equal(sim.tokensIssued, 1);
    } finally {
      client.close();
      await sim.stop();
    }
  });

  test('wrong client credentials are a refused token request, with the OAuth2 error as its title', async () => {
    const sim = await simulator();
    const config = { ...configFor(sim), clientSecret: 'wrong-wrong-wrong' };
    const client = new PixApiClient(config);
    try {
      await assert.rejects(
        client.charge('crpclienttest0000000000000001'),
        (error: PixApiError) => error.status === 401 && error.problem?.title === 'invalid_client',
      );
    } finally {
      client.close();
      await sim.stop();
    }
  });
});
