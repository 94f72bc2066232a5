/**
 * The OpenAPI document's tags in a reader's order, each with its line: the account first, then
 * the customer area as a player meets it, the machine callers (Integrations), then the
 * administration area by section. swagger-ui and Redocly list operations in this order rather
 * than the order their routes happened to be registered in. test/platform/openapi.test.ts fails
 * when an operation carries a tag missing here, or a tag here has no operation.
 */
export const OPENAPI_TAGS: readonly { name: string; description: string }[] = [
  {
    name: 'Account',
    description: 'Sign-up, sign-in with two-factor, the CSRF handshake, password reset, e-mail verification and the profile.',
  },
  { name: 'Identity', description: 'The player’s identity (CPF, full name, birth date) and its review status.' },
  { name: 'Responsible gambling', description: 'The player’s own limits (deposits, losses, session time) and self-exclusion.' },
  { name: 'Wallet', description: 'Balances and the statement of every ledger line.' },
  { name: 'Top-ups', description: 'Deposits: the options, creating a PIX top-up and following its status.' },
  { name: 'Withdrawals', description: 'Asking for a withdrawal to a PIX key, the fee, and the player’s own withdrawals.' },
  { name: 'Referral', description: 'The player’s referral link and what the people referred brought.' },
  { name: 'Games', description: 'Providers and their games, and launching one.' },
  { name: 'Provider bets', description: 'The player’s own bets with game providers.' },
  { name: 'Draw games', description: 'The in-house draw games: open draws, placing bets, results and their proofs.' },
  { name: 'Demo game', description: 'The built-in demo provider’s slot, played in the launch page.' },
  { name: 'Storage', description: 'Uploaded files (game thumbnails, bank logos) by their public URL.' },
  {
    name: 'Back office',
    description: 'The operator’s web application at /admin/ (HTML, scripts and styles; it calls the admin routes below).',
  },
  {
    name: 'Integrations',
    description: 'Signed machine callers: payment and payout notifications, PIX webhooks, seamless-wallet callbacks.',
  },
  { name: 'Admin: users', description: 'Staff and players: list, show, create, change, block.' },
  { name: 'Admin: roles', description: 'Roles and the permissions each grants.' },
  { name: 'Admin: permissions', description: 'The permissions a role can grant.' },
  { name: 'Admin: operation logs', description: 'Every staff action, with who did it, from where and what changed.' },
  { name: 'Admin: identities', description: 'The identity review queue: approve or reject a player’s identity.' },
  { name: 'Admin: balances', description: 'Players’ balances and adjustments by hand.' },
  { name: 'Admin: transactions', description: 'Every ledger line, filtered by player, kind and date.' },
  { name: 'Admin: top-ups', description: 'Deposits: the list, their status and paying one by hand.' },
  { name: 'Admin: payment methods', description: 'The PIX rails and gateways deposits and payouts go through, and their credentials.' },
  { name: 'Admin: withdrawals', description: 'The withdrawal review queue: approve, reject, and what the payout did.' },
  { name: 'Admin: banks', description: 'The banks list players choose from.' },
  { name: 'Admin: bank cards', description: 'Players’ bank cards on record.' },
  { name: 'Admin: providers', description: 'Game providers, their protocol, credentials and catalogue sync.' },
  { name: 'Admin: provider games', description: 'The games of each provider: visibility, order, thumbnails, return to player.' },
  { name: 'Admin: provider bets', description: 'Every bet, win and refund a provider called in.' },
  { name: 'Admin: held wins', description: 'Provider wins above the operator’s ceiling, held until staff release or refuse them.' },
  { name: 'Admin: games', description: 'The in-house draw games and their settings.' },
  { name: 'Admin: draws', description: 'Draws: the schedule, drawing, cancelling and their seeds.' },
  { name: 'Admin: draw bets', description: 'Every bet placed on a draw.' },
  { name: 'Admin: draw settlements', description: 'How each drawn draw was paid.' },
  { name: 'Admin: draw refunds', description: 'The stakes given back when a draw was cancelled.' },
  {
    name: 'Admin: dashboard',
    description: 'The back office’s dashboard: a range of days’ deposits, bets and gross gaming revenue, and the queues waiting on staff.',
  },
  { name: 'Admin: reports', description: 'The daily report: bettors, bets, deposits, withdrawals and gross gaming revenue.' },
  { name: 'Admin: settings', description: 'The operator’s settings (top-up options, withdrawal rules, referral), each change versioned.' },
  { name: 'Admin: upload', description: 'Uploading a file for a record that shows one.' },
];
