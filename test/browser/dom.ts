/*
 * The little of the DOM the browser tests run in a page (page.evaluate), typed here: the project
 * compiles against Node's globals, with which the DOM's own library clashes (fetch, Response).
 * A function Playwright runs in the page reaches the page through
 * `globalThis as unknown as PageWindow`; the types vanish when it is sent there.
 */

export interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
  height: number;
}

export interface PageNode {
  textContent: string | null;
  parentElement: PageElement | null;
}

export interface PageElement extends PageNode {
  tagName: string;
  id: string;
  classList: Iterable<string>;
  children: Iterable<PageElement>;
  clientWidth: number;
  scrollWidth: number;
  getBoundingClientRect(): Box;
  closest(selector: string): PageElement | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  getAttribute(name: string): string | null;
  /** SVG graphics only: the drawing's own extent. */
  getBBox?(): Box;
  /** Images only. */
  complete?: boolean;
  naturalWidth?: number;
}

export interface PageDocument {
  body: PageElement;
  documentElement: PageElement;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  /** `what` 4 is NodeFilter.SHOW_TEXT. */
  createTreeWalker(root: PageElement, what: 4): { nextNode(): PageNode | null };
  createRange(): { selectNodeContents(node: PageNode): void; getClientRects(): Iterable<Box> };
}

export interface PageWindow {
  document: PageDocument;
  getSelection(): { toString(): string } | null;
  navigator: { clipboard: { readText(): Promise<string> } };
}
