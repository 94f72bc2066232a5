import { Type } from 'typebox';
import type { AppContext } from '../../../platform/context.ts';
import type { App } from '../../../platform/http/app.ts';
import { errorResponses, MessageBody } from '../../../platform/http/schemas.ts';
import { FieldCheck } from '../../../platform/money.ts';
import { LANGUAGE_TAGS, LOCALES, type Locale } from '../../../platform/i18n/locale.ts';
import { demoPagePolicy, renderDemoPage } from './page.ts';
import { SYMBOLS } from './paytable.ts';
import type { DemoGameServer } from './game-server.ts';

const tags = ['Demo game'];
/** Launch and session tokens are random letters and digits. */
const Token = Type.String({ pattern: '^[A-Za-z0-9]{20,200}$', 'x-message': 'The :attribute is not a valid game token.' });
const Money = Type.Union([Type.Number(), Type.String()]);
/** The most one spin may stake: the demo slot is for trying things out. */
const MAX_STAKE = 10_000n;

const Status = Type.String({
  description:
    '`OK`, a wallet refusal code (docs/games.md), `WIN_HELD` (the win is over the operator’s ceiling: held for review), ' +
    '`UNAVAILABLE` (the wallet could not be reached) or `UNSETTLED`.',
});
const Units = Type.Union([Type.Number(), Type.Null()]);

const OpenAnswer = Type.Object({
  status: Status,
  demo: Type.Boolean({ description: 'Play credits, no money.' }),
  session: Type.Union([Type.String(), Type.Null()], { description: 'The session token the spins carry.' }),
  balance: Units,
  currency: Type.Union([Type.String(), Type.Null()]),
  game: Type.String(),
});

const SpinAnswer = Type.Object({
  status: Status,
  reels: Type.Union([Type.Array(Type.Enum(SYMBOLS)), Type.Null()], {
    description: 'The line, reel by reel; null when the bet was refused.',
  }),
  multiplier: Type.Integer({ description: 'Stakes paid.' }),
  win: Type.Number(),
  balance: Units,
  currency: Type.Union([Type.String(), Type.Null()]),
});

/**
 * The built-in demo game (adapter `demo`): its page (`GET /games/demo/play?token=`, where the
 * adapter's launch URL points) and its game server's two calls. Outside /api and stateless: the
 * page is opened from the front end, possibly in a frame on another origin, and proves who it is
 * with the tokens it carries, never with cookies.
 */
export function registerDemoGameRoutes(app: App, ctx: AppContext, server: DemoGameServer): void {
  const policies = Object.fromEntries(LOCALES.map((locale) => [locale, demoPagePolicy(ctx.config.corsOrigins, locale)])) as Record<
    Locale,
    string
  >;

  app.get(
    '/games/demo/play',
    {
      config: { stateless: true },
      schema: {
        tags,
        summary: 'The demo slot’s page for a launch token (HTML; the page redeems the token when it loads)',
        querystring: Type.Object({ token: Token }),
        response: { 200: Type.String({ description: 'text/html' }), 404: MessageBody, 422: errorResponses[422], 500: MessageBody },
      },
    },
    async (request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', policies[request.locale])
        .header('content-language', LANGUAGE_TAGS[request.locale])
        .send(renderDemoPage(request.query.token, ctx.config.appName, ctx.config.defaultCurrency, request.locale)),
  );

  app.post(
    '/games/demo/open',
    {
      config: { stateless: true },
      schema: {
        tags,
        summary: 'The demo game server redeems a launch token: through the wallet’s `balance` (money), or by itself (demo launch)',
        body: Type.Object({ token: Token }),
        response: { 200: OpenAnswer, ...errorResponses },
      },
    },
    async (request) => server.open(request.body.token, request),
  );

  app.post(
    '/games/demo/spin',
    {
      config: { stateless: true },
      schema: {
        tags,
        summary: 'One spin: signed `bet` and `win` calls to the wallet (a demo launch plays with the page’s credits)',
        body: Type.Object({
          session: Token,
          stake: Money,
          credits: Type.Optional(
            Type.Union([Type.Number(), Type.String()], { description: 'Demo launches: the play credits the page holds.' }),
          ),
        }),
        response: { 200: SpinAnswer, ...errorResponses },
      },
    },
    async (request) => {
      const check = new FieldCheck();
      const stake = check.money('stake', request.body.stake, { min: 1n, max: MAX_STAKE });
      const credits = request.body.credits === undefined ? undefined : check.money('credits', request.body.credits);
      check.throwIfFailed();
      return server.spin(request.body.session, stake, credits, request);
    },
  );
}
