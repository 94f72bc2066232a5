import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { AdminLocale } from '../../config.ts';

/** Where bin/build-web.js writes the built back office (outside git: .gitignore). */
export const ADMIN_DIST = join(import.meta.dirname, '..', '..', '..', 'web', 'admin', 'dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** One file as it is sent: its body and, for text, its compressed forms made once. */
export interface StaticFile {
  type: string;
  body: Buffer;
  gzip?: Buffer;
  brotli?: Buffer;
  /** Hashed names under assets/ never change content: cached for a year; index.html is revalidated. */
  immutable: boolean;
}

/** The build's own compressed copies (bin/build-web.js writes them), else made here. */
function compressed(path: string, file: StaticFile, prebuilt: boolean): StaticFile {
  if (file.body.length < 512 || !/text|json|svg/.test(file.type)) return file;
  if (prebuilt && existsSync(`${path}.br`) && existsSync(`${path}.gz`)) {
    return { ...file, gzip: readFileSync(`${path}.gz`), brotli: readFileSync(`${path}.br`) };
  }
  return {
    ...file,
    gzip: gzipSync(file.body),
    brotli: brotliCompressSync(file.body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }),
  };
}

function walk(dir: string, found: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, found);
    else found.push(path);
  }
  return found;
}

/**
 * The built files by URL path below /admin/ (`index.html`, `assets/…`), read and compressed at
 * start so a request is a map look-up; undefined when the build is missing. index.html gets the
 * first visit's language (ADMIN_LOCALE) as a meta tag: the page's CSP allows no inline script.
 */
export function loadAdminFiles(dist: string, locale: AdminLocale): Map<string, StaticFile> | undefined {
  if (!existsSync(join(dist, 'index.html'))) return undefined;
  const files = new Map<string, StaticFile>();
  for (const path of walk(dist)) {
    const name = relative(dist, path).split(sep).join('/');
    if (name.endsWith('.gz') || name.endsWith('.br') || name.startsWith('.')) continue;
    let body = readFileSync(path);
    if (name === 'index.html') {
      body = Buffer.from(body.toString('utf8').replace('<head>', `<head>\n    <meta name="admin-locale" content="${locale}" />`));
    }
    const type = TYPES[extname(name)] ?? 'application/octet-stream';
    files.set(name, compressed(path, { type, body, immutable: name.startsWith('assets/') }, name !== 'index.html'));
  }
  return files;
}
