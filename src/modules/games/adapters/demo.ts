import type { IncomingHttpHeaders } from 'node:http';
import { verifySignedBody } from '../../../platform/signature.ts';
import type { GameProviderAdapter, Launch, LaunchRequest } from './adapter.ts';

/**
 * The built-in provider: a small slot game whose page this service serves and whose server side
 * calls our own seamless wallet with a correct signature, so the whole flow runs with no third
 * party (docs/games.md).
 */
export class DemoAdapter implements GameProviderAdapter {
  readonly code = 'demo';
  readonly supportsDemo = true;

  async launch(request: LaunchRequest): Promise<Launch> {
    const url = new URL('/games/demo/play', request.appUrl);
    url.searchParams.set('token', request.token);
    return { url: url.href, html: null };
  }

  verify(rawBody: string, headers: IncomingHttpHeaders, secret: string, now: Date): void {
    verifySignedBody(rawBody, headers, secret, now);
  }
}
