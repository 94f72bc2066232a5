import type { Regulation } from '../config.ts';

/**
 * The return to player of a game (docs/regulation.md, "RTP"; docs/api.md section 14): a percent
 * with two decimals, held as basis points (96.00 % = 9600) so comparisons stay in integers. A
 * provider game's is the operator's, from its certificate; an in-house game's is derived from its
 * odds (src/modules/draws/settings.ts). Both answer to this one floor.
 */

/** Under REGULATION=br an enabled game returns at least 85.00 % (Portaria SPA/MF 1.231/2024). */
export const MIN_RTP_BP = 8500;

/** Basis points as JSON carries them: 9600 → 96. */
export function rtpUnits(bp: number): number {
  return bp / 100;
}

/** Basis points as a message writes them: 8500 → "85.00". */
export function formatRtp(bp: number): string {
  return (bp / 100).toFixed(2);
}

/** Whether games show and must meet an RTP: only under `br`; `none` keeps the seed's records exactly. */
export function rtpApplies(regulation: Regulation): boolean {
  return regulation === 'br';
}

/** Why a provider game enabled with this RTP is refused (422 on `rtp`), or undefined. */
export function providerRtpRefusal(rtpBp: number | null): string | undefined {
  if (rtpBp === null) return 'The rtp field is required for an enabled game: the return to player of its certificate.';
  if (rtpBp < MIN_RTP_BP) return `The rtp of an enabled game must be at least ${formatRtp(MIN_RTP_BP)}.`;
  return undefined;
}
