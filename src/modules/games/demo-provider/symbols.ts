import type { SlotSymbol } from './paytable.ts';

/*
 * How the demo slot draws its symbols: inline SVG on a 64 × 64 grid, so they look the same on
 * every machine (an emoji needs an emoji font, which a stock Debian Chromium lacks: it drew empty
 * boxes) and scale with their reel (text sized in rem overflowed it). Flat shapes with a darker
 * outline of their own colour and one highlight each, in the colours players know from fruit
 * machines. The page holds each drawing once, as a <symbol> of a hidden sprite; reels and the
 * paytable show them through <use>, so a spin changes one attribute.
 */

export const SYMBOL_NAMES: Record<SlotSymbol, string> = {
  seven: 'Seven',
  bar: 'Bar',
  bell: 'Bell',
  melon: 'Melon',
  lemon: 'Lemon',
  cherry: 'Cherry',
};

/** "Any other symbol", for the paytable's cherry lines. */
export type Drawing = SlotSymbol | 'any';

const ART: Record<Drawing, string> = {
  seven:
    '<path d="M13 10h38v9.5C43 29 37.5 40.5 35.5 55h-13c1.5-12.5 7-24 14.5-34H13z" fill="#d7263d" stroke="#7d0f1c" stroke-width="2.5" stroke-linejoin="round"/>' +
    '<path d="M17 14h29" stroke="#ff9aa5" stroke-width="2.5" stroke-linecap="round"/>',
  bar:
    '<rect x="4" y="17" width="56" height="30" rx="5" fill="#23252b" stroke="#e0a100" stroke-width="2.5"/>' +
    // textLength fixes the word's width whatever font draws it, so it always fits the plate.
    '<text x="32" y="39.5" text-anchor="middle" font-family="system-ui, sans-serif" font-size="20" font-weight="800" ' +
    'fill="#fff" textLength="42" lengthAdjust="spacingAndGlyphs">BAR</text>',
  bell:
    '<circle cx="32" cy="53" r="5" fill="#8a5d00"/>' +
    '<circle cx="32" cy="8" r="3" fill="#8a5d00"/>' +
    '<path d="M32 10c-10 0-15 8-15 17.5V36c0 3.5-2.5 6.5-6 9v3.5h42V45c-3.5-2.5-6-5.5-6-9v-8.5C47 18 42 10 32 10z" fill="#f5b700" stroke="#8a5d00" stroke-width="2.5" stroke-linejoin="round"/>' +
    '<path d="M23 30v-2.5c0-5.5 2.5-10 7-11.5" fill="none" stroke="#fff1b8" stroke-width="3" stroke-linecap="round"/>',
  melon:
    '<path d="M5 19a27 27 0 0 0 54 0z" fill="#2f8f46" stroke="#1c5e2c" stroke-width="2" stroke-linejoin="round"/>' +
    '<path d="M9.5 19a22.5 22.5 0 0 0 45 0z" fill="#dff3bd"/>' +
    '<path d="M12.5 19a19.5 19.5 0 0 0 39 0z" fill="#e8394d"/>' +
    '<g fill="#2b1414"><ellipse cx="22" cy="25" rx="1.6" ry="2.6" transform="rotate(25 22 25)"/>' +
    '<ellipse cx="32" cy="29" rx="1.6" ry="2.6"/><ellipse cx="42" cy="25" rx="1.6" ry="2.6" transform="rotate(-25 42 25)"/>' +
    '<ellipse cx="27" cy="34" rx="1.6" ry="2.6" transform="rotate(15 27 34)"/><ellipse cx="37" cy="34" rx="1.6" ry="2.6" transform="rotate(-15 37 34)"/></g>',
  lemon:
    '<path d="M6 32c3-2 5-4 7-7 5-8 12-11 19-11s14 3 19 11c2 3 4 5 7 7-3 2-5 4-7 7-5 8-12 11-19 11s-14-3-19-11c-2-3-4-5-7-7z" fill="#ffd43b" stroke="#b08400" stroke-width="2.5" stroke-linejoin="round"/>' +
    '<path d="M21 25c3-3.5 7-5 11-5" fill="none" stroke="#fff6c2" stroke-width="3" stroke-linecap="round"/>',
  cherry:
    '<path d="M20 36C22 25 29 16 43 9M43 38c-2-11-2-20 0-29" fill="none" stroke="#6b4423" stroke-width="2.5" stroke-linecap="round"/>' +
    '<path d="M43 9c5-5 12-5 16-1-5 4.5-11 5-16 1z" fill="#43a047" stroke="#2a6b2d" stroke-width="1.5" stroke-linejoin="round"/>' +
    '<circle cx="20" cy="45" r="11" fill="#c8102e" stroke="#7a0919" stroke-width="2"/>' +
    '<circle cx="43" cy="47" r="11" fill="#c8102e" stroke="#7a0919" stroke-width="2"/>' +
    '<circle cx="16" cy="41" r="3" fill="#ff8597"/><circle cx="39" cy="43" r="3" fill="#ff8597"/>',
  any: '<path d="M22 32h20" stroke="#9aa0ab" stroke-width="4" stroke-linecap="round"/>',
};

/** Every drawing once, for the page to reference: zero-sized, hidden from assistive technology. */
export function symbolSprite(): string {
  const symbols = (Object.entries(ART) as [Drawing, string][]).map(
    ([drawing, art]) => `<symbol id="symbol-${drawing}" viewBox="0 0 64 64">${art}</symbol>`,
  );
  return `<svg class="sprite" width="0" height="0" aria-hidden="true" focusable="false">${symbols.join('')}</svg>`;
}

/** One drawing where it shows (a reel, a paytable cell); its name is said by the element around it. */
export function symbolUse(drawing: Drawing): string {
  return `<svg class="symbol" viewBox="0 0 64 64" aria-hidden="true" focusable="false"><use href="#symbol-${drawing}"></use></svg>`;
}
