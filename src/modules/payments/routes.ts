import { eq } from 'drizzle-orm';
import { registerResource } from '../../platform/admin/resource.ts';
import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { registerCustomerList } from '../../platform/pagination/customer-list.ts';
import { paymentMethodsResource } from './admin-payment-methods.ts';
import type { PaymentGateways } from './gateways/gateway.ts';
import { customerPaymentMethodFields, PaymentMethodRecord } from './methods.ts';
import { paymentMethods } from './tables.ts';

/** Customer payment methods and the admin payment-method CRUD. */
export function registerPaymentRoutes(app: App, ctx: AppContext, gateways: PaymentGateways): void {
  registerCustomerList(app, ctx, {
    path: '/api/payment-methods',
    tags: ['Top-ups'],
    summary: 'Enabled payment methods, by sort',
    source: { table: paymentMethods, select: customerPaymentMethodFields, sort: paymentMethods.sort, timestamp: null },
    // Customers see enabled methods only; the condition is pinned, not offered in the query string.
    scope: { where: eq(paymentMethods.status, 1) },
    record: PaymentMethodRecord,
  });

  registerResource(app, ctx, paymentMethodsResource(ctx, gateways));
}
