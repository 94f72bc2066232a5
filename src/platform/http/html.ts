import { createHash } from 'node:crypto';

/*
 * The HTML pages the service serves itself (a top-up's payment page, the demo slot): one way to
 * build their document and their Content-Security-Policy, so every page loads nothing from
 * anywhere and runs only the one style sheet and script it was built with.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text or an attribute value as it may stand in the pages we serve (the pay page, the demo game). */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

export interface HtmlPage {
  /** The instance's name (APP_NAME); the title reads "<app name> – <title>". */
  appName: string;
  title: string;
  /** The page's one inline style sheet: pagePolicy allows it by its hash. */
  style: string;
  /** The page's one inline script, if any, placed last in the body: pagePolicy allows it by its hash. */
  script?: string;
  /** Attributes of `<body>` (`data-*` values the script reads), escaped here. */
  bodyAttributes?: Record<string, string>;
  /** The body's markup; the caller escapes every value it puts in. */
  body: string;
  /** `<html lang>`, the language tag of the page's text; `en` unless given. */
  lang?: string;
  /** Reload the page by itself after this many seconds (a `refresh` meta tag), e.g. while a payment is awaited. */
  refreshS?: number;
}

/** A complete document: UTF-8, sized for phones, kept out of search engines. */
export function htmlPage(page: HtmlPage): string {
  const attributes = Object.entries(page.bodyAttributes ?? {})
    .map(([name, value]) => ` ${name}="${escapeHtml(value)}"`)
    .join('');
  const script = page.script === undefined ? '' : `<script>${page.script}</script>\n`;
  const refresh = page.refreshS === undefined ? '' : `<meta http-equiv="refresh" content="${page.refreshS}">\n`;
  return `<!doctype html>
<html lang="${escapeHtml(page.lang ?? 'en')}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
${refresh}<title>${escapeHtml(page.appName)} – ${escapeHtml(page.title)}</title>
<style>${page.style}</style>
</head>
<body${attributes}>
${page.body}
${script}</body>
</html>
`;
}

/** An inline style or script as a policy source: the SHA-256 of its exact text. */
export function inlineHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}

export interface PagePolicy {
  /** The page's style sheet and script, exactly as htmlPage was given them. */
  style: string;
  script?: string;
  /** Where images may come from (`data:` for an inline QR code); none when absent. */
  images?: string;
  /** The page's script may call this origin (fetch). */
  connectSelf?: boolean;
  /** Who may frame the page; nobody when empty. */
  frameAncestors: readonly string[];
}

/**
 * The Content-Security-Policy of a page built by htmlPage: nothing loads from anywhere, only the
 * page's own style and script run (by their hashes, so an injected one would not), no form posts
 * and no `<base>` redirect.
 */
export function pagePolicy(policy: PagePolicy): string {
  const directives = ["default-src 'none'"];
  if (policy.script !== undefined) directives.push(`script-src ${inlineHash(policy.script)}`);
  directives.push(`style-src ${inlineHash(policy.style)}`);
  if (policy.images !== undefined) directives.push(`img-src ${policy.images}`);
  if (policy.connectSelf === true) directives.push("connect-src 'self'");
  directives.push("base-uri 'none'", "form-action 'none'");
  directives.push(`frame-ancestors ${policy.frameAncestors.length > 0 ? policy.frameAncestors.join(' ') : "'none'"}`);
  return directives.join('; ');
}
