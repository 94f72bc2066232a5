import type { Config } from '../../../config.ts';
import { EfiPayoutGateway } from '../efi/payout-gateway.ts';
import { PIX_GATEWAYS } from '../pix-api/config.ts';
import { PixApiGateway } from '../pix-api/gateway.ts';
import type { PixMethods } from '../pix-api/methods.ts';
import { PaymentGateways } from './gateway.ts';
import { PayoutGateways } from './payout.ts';
import { SandboxGateway } from './sandbox.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The payment gateways of this app (built in app.ts); tests may register their own. */
    paymentGateways: PaymentGateways;
    /** The payout gateways (built in app.ts); tests may register their own. */
    payoutGateways: PayoutGateways;
    /** The API Pix payment methods and their clients (built in app.ts). */
    pixMethods: PixMethods;
  }
}

/**
 * The gateways every instance has: the built-in sandbox, configured from the environment, for
 * payments and payouts; `pix-api` and `efi`, configured per payment method, for charges; `efi`,
 * per method too, for payouts (Efí's PIX send). Approvals pay through the method chosen in
 * `PUT /api/admin/settings/payouts`, the sandbox by default.
 */
export function builtInGateways(config: Config, pixMethods: PixMethods): { payments: PaymentGateways; payouts: PayoutGateways } {
  const sandbox = new SandboxGateway({
    secret: config.paymentSandboxSecret,
    pixKey: config.pixKey,
    merchantName: config.pixMerchantName,
    merchantCity: config.pixMerchantCity,
  });
  const pix = PIX_GATEWAYS.map((code) => new PixApiGateway(code, pixMethods));
  return {
    payments: new PaymentGateways([sandbox, ...pix]),
    payouts: new PayoutGateways([sandbox, new EfiPayoutGateway(pixMethods)], sandbox.code),
  };
}
