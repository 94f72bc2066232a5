import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { seedDemo } from '../../src/modules/games/demo-provider/seed.ts';
import { renderPayPage } from '../../src/modules/topups/pay-page.ts';
import { PasswordHasher } from '../../src/platform/auth/passwords.ts';
import { Keyring } from '../../src/platform/crypto.ts';
import { LocalDiskStorage } from '../../src/platform/storage/local-disk.ts';
import { TOPUP_STATUS, type TopupRow } from '../../src/modules/topups/repository.ts';
import { enableConfirmedTwoFactor, login, pendingLogin } from '../auth/support.ts';
import { uniqueEmail, useApp, type Response } from '../helpers/app.ts';
import { fund } from '../withdrawals/helpers.ts';
import { identityBody, setLimits, verifiedPlayer } from '../regulation/support.ts';

/** A 422 in Laravel's shape, in Portuguese, said to be so. */
function assertErrors(res: Response, errors: Record<string, string[]>): void {
  assert.equal(res.status, 422, res.text);
  const all = Object.values(errors).flat();
  const more = all.length - 1;
  const message = more === 0 ? all[0] : `${all[0]} (e mais ${more} ${more === 1 ? 'erro' : 'erros'})`;
  assert.deepEqual(res.json, { message, errors });
  assert.equal(res.headers['content-language'], 'pt-BR');
}

function assertMessage(res: Response, status: number, message: string): void {
  assert.equal(res.status, status, res.text);
  assert.deepEqual(res.json, { message });
  assert.equal(res.headers['content-language'], 'pt-BR');
}

describe('APP_LOCALE=pt_BR: every answer a person reads is in Brazilian Portuguese', () => {
  const ctx = useApp({ APP_LOCALE: 'pt_BR', REGULATION: 'br' });

  test('registration: the pack’s validation messages with its attribute names, and the summary', async () => {
    const client = ctx().client();
    await client.csrf();
    const res = await client.post('/api/register', {
      name: 'Maria',
      email: 'not-an-e-mail',
      password: 'short',
      password_confirmation: 'other',
    });
    assertErrors(res, {
      email: ['O campo e-mail não contém um endereço de email válido.'],
      password: ['O campo senha deve conter no mínimo 8 caracteres.', 'A confirmação para o campo senha não coincide.'],
      agreement: ['O campo termos deve ser aceito.'],
    });
    const empty = await client.post('/api/register', {});
    assert.equal((empty.json as { errors: Record<string, string[]> }).errors.email![0], 'O campo e-mail é obrigatório.');
    const taken = await ctx().player();
    const again = await client.post('/api/register', {
      name: 'Maria',
      email: taken.email,
      password: 'password123',
      password_confirmation: 'password123',
      agreement: true,
    });
    assertErrors(again, { email: ['O valor informado para o campo e-mail já está em uso.'] });
  });

  test('sign-in, the lockout and the guard: Fortify’s and Laravel’s words', async () => {
    const player = await ctx().player();
    const client = ctx().client();
    assertErrors(await login(client, player.email, 'wrong-password'), {
      email: ['Credenciais informadas não correspondem com nossos registros.'],
    });
    for (let i = 0; i < 4; i += 1) await login(client, player.email, 'wrong-password');
    const locked = await login(client, player.email, 'wrong-password');
    assert.equal(locked.status, 429, locked.text);
    assert.match(
      (locked.json as { errors: { email: string[] } }).errors.email[0]!,
      /^Você realizou muitas tentativas de login\. Por favor, tente novamente em \d+ segundos\.$/,
    );
    assertMessage(await ctx().client().get('/api/user'), 401, 'Não autenticado.');
    assertMessage(await player.client.get('/api/admin/users'), 403, 'Esta ação não é autorizada.');
    const stranger = ctx().client();
    assertMessage(await stranger.post('/api/login', {}), 419, 'O token CSRF não confere.');
    assertMessage(await player.client.get('/api/no-such-route'), 404, 'Não encontrado.');
  });

  test('password reset: the answers and the e-mail are Portuguese', async () => {
    const player = await ctx().player();
    const client = ctx().client();
    await client.csrf();
    assertErrors(await client.post('/api/forgot-password', { email: uniqueEmail('nobody') }), {
      email: ['Não conseguimos encontrar nenhum usuário com o endereço de e-mail informado.'],
    });
    assertMessage(
      await client.post('/api/forgot-password', { email: player.email }),
      200,
      'Enviamos um link para redefinir a sua senha por e-mail.',
    );
    const mail = await ctx().inbox.next(player.email);
    assert.equal(mail.subject, 'Notificação de redefinição de senha');
    assert.match(String(mail.text), /^Você recebeu esse e-mail porque foi solicitado uma redefinição de senha na sua conta\./);
    assert.match(String(mail.text), /Redefinir senha: http/);
    assert.match(String(mail.text), /O link de redefinição de senha irá expirar em 60 minutos\./);
    assert.match(String(mail.text), /Se você não solicitou essa redefinição de senha, ignore este e-mail\.$/);
    assert.equal(mail.headers.get('content-language'), 'pt-BR');
    const token = /password-reset\/([0-9a-f]{64})/.exec(String(mail.text))![1]!;
    assertErrors(await client.post('/api/forgot-password', { email: player.email }), {
      email: ['Por favor espere antes de tentar novamente.'],
    });
    const bad = await client.post('/api/reset-password', {
      token: '0'.repeat(64),
      email: player.email,
      password: 'new-password-1',
      password_confirmation: 'new-password-1',
    });
    assertErrors(bad, { email: ['Esse código de redefinição de senha é inválido.'] });
    const good = await client.post('/api/reset-password', {
      token,
      email: player.email,
      password: 'new-password-1',
      password_confirmation: 'new-password-1',
    });
    assertMessage(good, 200, 'Sua senha foi redefinida!');
  });

  test('the e-mail verification mail is Portuguese', async () => {
    const player = await ctx().player();
    const sent = await player.client.post('/api/email/verification-notification');
    assert.equal(sent.status, 202, sent.text);
    const mail = await ctx().inbox.next(player.email);
    assert.equal(mail.subject, 'Verifique o endereço de e-mail');
    assert.match(
      String(mail.text),
      /^Por favor, clique no botão abaixo para verificar seu endereço de e-mail\.\n\nVerifique o endereço de e-mail: http/,
    );
    assert.match(String(mail.text), /Se você não criou uma conta, ignore este e-mail\.$/);
  });

  test('two-factor, password confirmation and profile', async () => {
    const player = await ctx().player();
    assertMessage(await player.client.post('/api/user/two-factor-authentication'), 423, 'É necessário confirmar a senha.');
    assertErrors(await player.client.post('/api/user/confirm-password', { password: 'wrong' }), {
      password: ['A senha informada está incorreta.'],
    });
    await enableConfirmedTwoFactor(player);
    const pending = await pendingLogin(ctx(), player);
    assertErrors(await pending.post('/api/two-factor-challenge', { code: '000000' }), {
      code: ['O código de autenticação em dois fatores informado não é válido.'],
    });
    assertErrors(await pending.post('/api/two-factor-challenge', { recovery_code: 'aaaaaaaaaa-bbbbbbbbbb' }), {
      recovery_code: ['O código de recuperação de dois fatores fornecido era inválido.'],
    });
    assertErrors(
      await player.client.put('/api/user/password', {
        current_password: 'nope',
        password: 'new-password-1',
        password_confirmation: 'new-password-1',
      }),
      {
        current_password: ['A senha informada não corresponde à sua senha atual.'],
      },
    );
    assertErrors(await player.client.put('/api/user/profile-information', { name: '', email: 'x' }), {
      name: ['O campo nome é obrigatório.'],
      email: ['O campo e-mail não contém um endereço de email válido.'],
    });
  });

  test('identity, limits and top-ups: the regulated mode’s refusals, amounts as R$', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const newcomer = await ctx().player();
    assertMessage(
      await newcomer.client.post('/api/topups', { payment_method_id: 1, amount: 10 }),
      403,
      'Verifique a sua identidade antes de depositar, jogar ou sacar.',
    );
    assertErrors(await newcomer.client.put('/api/user/identity', identityBody({ cpf: '11111111111', full_name: 'Maria' })), {
      cpf: ['O CPF não é um CPF válido.'],
      full_name: ['O nome completo deve ter pelo menos duas palavras.'],
    });
    const player = await verifiedPlayer(ctx(), admin);
    assertErrors(await player.client.put('/api/user/limits', { session_minutes: 1441 }), {
      session_minutes: ['O campo minutos de sessão deve ser um número inteiro entre 1 e 1440.'],
    });
    await setLimits(player.client, { deposit_daily: 1234.56 });
    assert.equal((await player.client.post('/api/topups', { payment_method_id: 1, amount: 1000 })).status, 201);
    assertErrors(await player.client.post('/api/topups', { payment_method_id: 1, amount: 300 }), {
      amount: [
        'Este depósito ultrapassaria o seu limite de depósito diário de R$\u00a01.234,56: você pode depositar mais R$\u00a0234,56 hoje.',
      ],
    });
    assertErrors(await player.client.post('/api/topups', { payment_method_id: 99999, amount: 10 }), {
      payment_method_id: ['O valor selecionado para o campo método de pagamento é inválido.'],
    });
    assertErrors(await player.client.post('/api/topups', { payment_method_id: 1, amount: 'ten' }), {
      amount: ['O campo valor deve conter um valor numérico.'],
    });
  });

  test('withdrawals: the fields and the balance in Portuguese', async () => {
    const admin = (await ctx().withRole('super-admin')).client;
    const player = await verifiedPlayer(ctx(), admin, identityBody({ full_name: 'João Conceição da Silva' }));
    await fund(ctx(), player.id, 5_075n);
    assertErrors(await player.client.post('/api/withdrawals', {}), {
      payee_name: ['O campo nome do favorecido é obrigatório.'],
      account_type: ['O campo tipo de conta é obrigatório.'],
      payee_account: ['O campo conta do favorecido é obrigatório.'],
      amount: ['O campo valor é obrigatório.'],
    });
    const body = { payee_name: player.fullName, account_type: 'CPF', payee_account: player.cpf };
    assertErrors(await player.client.post('/api/withdrawals', { ...body, payee_name: 'João da Silva', amount: 20 }), {
      payee_name: ['O nome do favorecido deve ser o seu nome completo verificado.'],
    });
    assertErrors(await player.client.post('/api/withdrawals', { ...body, amount: 60 }), {
      amount: ['O valor não pode ser superior ao seu saldo de R$\u00a050,75.'],
    });
  });

  test('administration: 422, 403 and 409 in Portuguese', async () => {
    const admin = await ctx().withRole('admin');
    assertErrors(await admin.client.put(`/api/admin/users/${admin.id}`, { status: 0 }), {
      status: ['Você não pode desativar a sua própria conta.'],
    });
    assertMessage(await admin.client.delete(`/api/admin/users/${admin.id}`), 409, 'Você não pode excluir a sua própria conta.');
    const root = await ctx().withRole('super-admin');
    assertErrors(await root.client.post('/api/admin/banks', {}), {
      name: ['O campo nome é obrigatório.'],
      code: ['O campo código é obrigatório.'],
      // The field's own name (docs/api.md), which no attribute list knows: kept, as Laravel keeps it.
      currenry: ['O campo currenry é obrigatório.'],
    });
  });
});

describe('APP_LOCALE_NEGOTIATE=on: Accept-Language picks the language of each request', () => {
  const ctx = useApp({ APP_LOCALE_NEGOTIATE: 'on' });

  test('pt-BR gets Portuguese, anything else English, each saying which', async () => {
    const client = ctx().client();
    const portuguese = await client.get('/api/user', { 'accept-language': 'pt-BR,pt;q=0.9,en;q=0.8' });
    assertMessage(portuguese, 401, 'Não autenticado.');
    assert.match(String(portuguese.headers.vary), /Accept-Language/);
    const english = await client.get('/api/user', { 'accept-language': 'fr-FR' });
    assert.equal(english.status, 401);
    assert.deepEqual(english.json, { message: 'Unauthenticated.' });
    assert.equal(english.headers['content-language'], 'en');
    const none = await client.get('/api/user');
    assert.deepEqual(none.json, { message: 'Unauthenticated.' });
  });
});

describe('APP_LOCALE=pt_BR: the pages the service serves', () => {
  const ctx = useApp({ APP_LOCALE: 'pt_BR' });

  test('the PIX payment page reads R$ 150,75, copies the code in Portuguese and counts down the time left', async () => {
    const t = ctx();
    const player = await t.player();
    const res = await player.client.post('/api/topups', { payment_method_id: 1, amount: '150.75' });
    assert.equal(res.status, 201, res.text);
    const topup = (res.json as { data: { payment_url: string; qr_code: string } }).data;
    const page = await t.app.inject({ method: 'GET', url: new URL(topup.payment_url).pathname });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['content-language'], 'pt-BR');
    assert.match(page.body, /<html lang="pt-BR">/);
    assert.match(page.body, /<p class="amount">R\$\u00a0150,75<\/p>/);
    assert.match(page.body, /<h1>Pagamento PIX<\/h1>/);
    assert.match(page.body, /<p class="status pending">Aguardando pagamento<\/p>/);
    assert.match(page.body, /<button type="button" class="copy" hidden>Copiar código PIX<\/button>/);
    assert.ok(page.body.includes(`<code class="code" id="pix-code">${topup.qr_code}</code>`));
    assert.ok(
      page.body.includes('"O código PIX está na sua área de transferência: cole-o no app do seu banco."'),
      'the script says it in Portuguese',
    );
    // 24 hours to pay, counted down by the script; the page reloads itself while the payment is awaited.
    assert.match(page.body, /<p class="expiry">Pague em até <time data-seconds="(8639\d|86400)">2[34]:\d\d:\d\d<\/time><\/p>/);
    assert.match(page.body, /<meta http-equiv="refresh" content="10">/);
    const script = /<script>([\s\S]*?)<\/script>/.exec(page.body)![1]!;
    assert.ok(
      String(page.headers['content-security-policy']).includes(
        `script-src 'sha256-${createHash('sha256').update(script).digest('base64')}'`,
      ),
    );
  });

  test('a returned payment’s page says why, in Portuguese, and no longer reloads', async () => {
    const html = await renderPayPage(
      {
        ...({} as TopupRow),
        amount: 15_075n,
        currency: 'BRL',
        status: TOPUP_STATUS.returned,
        qr_code: 'code',
        reason: "The amount paid (150.00) is not the top-up's amount (150.75); it was returned to the payer.",
      },
      'croupier',
      'pt_BR',
      3600,
    );
    assert.match(html, /<p class="status returned">Devolvido ao pagador<\/p>/);
    assert.match(
      html,
      /<p class="reason">Motivo: O valor pago \(R\$\u00a0150,00\) não é o valor do depósito \(R\$\u00a0150,75\); ele foi devolvido ao pagador\.<\/p>/,
    );
    assert.doesNotMatch(html, /http-equiv="refresh"|class="expiry"|id="pix-code"/);
  });

  test('the demo slot’s page is Portuguese', async () => {
    const page = await ctx().app.inject({ method: 'GET', url: `/games/demo/play?token=${'a'.repeat(24)}` });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['content-language'], 'pt-BR');
    assert.match(page.body, /<h1>Caça-níquel de demonstração<\/h1>/);
    assert.match(page.body, /<button type="button" class="spin" disabled>Girar<\/button>/);
    assert.match(page.body, /aria-label="Três Cerejas"/);
    assert.match(page.body, /Retorno ao jogador \d+,\d\d&nbsp;%/);
    assert.ok(page.body.includes('"Saldo insuficiente para esta aposta."'));
    assert.match(page.body, /data-names="[^"]*Cereja/);
  });

  test('seed:demo names its games, provider and player in Portuguese', async () => {
    const t = ctx();
    await seedDemo(
      {
        db: t.db,
        keys: new Keyring(t.config.appKey),
        storage: new LocalDiskStorage(t.config.dataDir),
        hasher: new PasswordHasher({ memoryCost: 1024, timeCost: 1 }),
        currency: t.config.defaultCurrency,
        regulation: t.config.regulation,
        locale: t.config.appLocale,
      },
      { password: 'demo-password-1' },
    );
    const player = await t.player();
    const providers = (await player.client.get('/api/providers')).json as { data: { id: number; name: string; code: string }[] };
    const demo = providers.data.find((provider) => provider.code === 'demo')!;
    assert.equal(demo.name, 'Jogos de Demonstração');
    const listed = (await player.client.get(`/api/providers/${demo.id}/games`)).json as { data: { name: string }[] };
    assert.deepEqual(listed.data.map((game) => game.name).sort(), ['Caça-níquel de Frutas', 'Chuva de Joias', 'Setes da Sorte']);
    const games = (await player.client.get('/api/games')).json as { data: { name: string }[] };
    assert.deepEqual(games.data.map((game) => game.name).sort(), ['Dados 3', 'Dobro']);
  });
});
