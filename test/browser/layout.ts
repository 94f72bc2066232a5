import type { Page } from 'playwright-core';
import type { Box, PageElement, PageWindow } from './dom.ts';

/*
 * What a person would call "broken" on a page, measured in the browser: something sticking out
 * of its box or off the screen, and characters the machine may have no font for.
 */

/**
 * Every element and text that leaves its parent's box or the viewport, and every box whose
 * content is wider than it (scrollWidth over clientWidth): one line each, naming the element.
 * Boxes are compared with half a pixel to spare (sub-pixel layout). The drawings inside an SVG
 * are its own business (its viewBox scales them), and zero-sized elements (the hidden sprite)
 * show nothing.
 */
export function overflowProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const { document } = globalThis as unknown as PageWindow;
    const slack = 0.5;
    const problems: string[] = [];
    const viewport = document.documentElement.clientWidth;
    const name = (node: PageElement) =>
      node.tagName.toLowerCase() + (node.id ? `#${node.id}` : '') + [...node.classList].map((c) => `.${c}`).join('');
    const outside = (inner: Box, outer: Box) =>
      inner.left < outer.left - slack ||
      inner.right > outer.right + slack ||
      inner.top < outer.top - slack ||
      inner.bottom > outer.bottom + slack;
    const shown = (box: Box) => box.width > 0 && box.height > 0;

    if (document.documentElement.scrollWidth > viewport) {
      problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px in a ${viewport} px viewport`);
    }
    for (const element of document.body.querySelectorAll('*')) {
      const parent = element.parentElement!;
      if (parent.closest('svg') !== null) continue;
      const box = element.getBoundingClientRect();
      if (!shown(box)) continue;
      if (box.left < -slack || box.right > viewport + slack) {
        problems.push(`${name(element)} leaves the viewport: ${box.left.toFixed(1)}..${box.right.toFixed(1)} of 0..${viewport}`);
      }
      if (parent !== document.body && outside(box, parent.getBoundingClientRect())) {
        problems.push(`${name(element)} sticks out of ${name(parent)}`);
      }
      if (element.clientWidth > 0 && element.scrollWidth > element.clientWidth) {
        problems.push(`${name(element)} holds ${element.scrollWidth} px of content in ${element.clientWidth} px`);
      }
    }
    const walker = document.createTreeWalker(document.body, 4);
    for (let text = walker.nextNode(); text !== null; text = walker.nextNode()) {
      const parent = text.parentElement!;
      if (parent.closest('script, style, svg') !== null || text.textContent!.trim() === '') continue;
      const range = document.createRange();
      range.selectNodeContents(text);
      const parentBox = parent.getBoundingClientRect();
      for (const line of range.getClientRects()) {
        if (shown(line) && outside(line, parentBox)) problems.push(`the text "${text.textContent!.trim()}" sticks out of ${name(parent)}`);
      }
    }
    return problems;
  });
}

/** Latin-1's printable characters and line breaks: every font has them. */
export const LATIN_1 = /^[\t\n\r\u0020-\u007e\u00a0-\u00ff]*$/u;

/**
 * What the fonts of a stock Debian (DejaVu, Liberation) draw: Latin-1 and the typographic
 * punctuation below. Anything else (an emoji first of all) may come out as an empty box.
 */
export const DRAWABLE = /^[\t\n\r\u0020-\u007e\u00a0-\u00ff\u2013\u2014\u2019\u2026]*$/u;

/** The texts under `selector` (SVG <text> included; scripts and styles not) that hold a character outside `allowed`. */
export function undrawableTexts(page: Page, selector: string, allowed: RegExp = DRAWABLE): Promise<string[]> {
  return page.evaluate(
    ({ selector, source, flags }) => {
      const { document } = globalThis as unknown as PageWindow;
      const allowed = new RegExp(source, flags);
      const found: string[] = [];
      for (const root of document.querySelectorAll(selector)) {
        const walker = document.createTreeWalker(root, 4);
        for (let text = walker.nextNode(); text !== null; text = walker.nextNode()) {
          if (text.parentElement!.closest('script, style') !== null) continue;
          if (!allowed.test(text.textContent!)) found.push(text.textContent!.trim());
        }
      }
      return found;
    },
    { selector, source: allowed.source, flags: allowed.flags },
  );
}
