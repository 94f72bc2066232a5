import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Every sentence the service's source writes for a person to read: string and template literals
 * that start with a capital letter, hold a space and end with `.`, `!` or `?`, outside comments,
 * OpenAPI descriptions, log calls and plain `Error`s (those reach only the log or an operator's
 * terminal, and 500s answer "Server Error."). A template's `${…}` parts come back as `\u0000`.
 */
export interface Sentence {
  file: string;
  line: number;
  text: string;
}

/** Properties whose strings document the API rather than answer anyone. */
const DOC_PROPERTIES = new Set(['description', 'summary', 'title', 'example', 'examples']);
/** Calls whose strings go to the log or an operator, not to an answer. */
const INTERNAL_CALLEES = new Set([
  'Error',
  'TypeError',
  'RangeError',
  'ConfigError',
  'CommandError',
  'UsageError',
  'SyncError',
  'IdempotencyMismatchError',
  // No primary found (src/platform/db/primary.ts): a database that is unavailable, answered 503 "Service Unavailable.".
  'NoFittingHostError',
]);
const LOG_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const SENTENCE = /^[A-Z].* .*[.!?]$/s;

/**
 * Files whose sentences are not answers: the command line and what only it reads or writes
 * (files, the national list, PIX webhook registration), configuration, start-up, the metrics'
 * help texts and the OpenAPI document; and the catalogue itself.
 */
const SKIPPED_FILES = [
  /^src\/(cli|cluster|commands|config|server)\.ts$/,
  /^src\/platform\/(file-arguments|db\/lock|metrics\/registry|http\/openapi)\.ts$/,
  /^src\/modules\/(pix\/commands|reports\/files|limits\/national-list)\.ts$/,
  /^src\/platform\/i18n\//,
];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function internal(node: ts.Node): boolean {
  for (let at: ts.Node | undefined = node.parent; at !== undefined; at = at.parent) {
    if (ts.isPropertyAssignment(at) && DOC_PROPERTIES.has(at.name.getText())) return true;
    if (ts.isNewExpression(at) && INTERNAL_CALLEES.has(at.expression.getText())) return true;
    if (ts.isCallExpression(at)) {
      const callee = at.expression;
      if (ts.isPropertyAccessExpression(callee) && LOG_METHODS.has(callee.name.text) && /log/i.test(callee.expression.getText()))
        return true;
      if (callee.getText() === 'fail') return true;
    }
    if (ts.isFunctionLike(at) || ts.isSourceFile(at)) return false;
  }
  return false;
}

function literalText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((span) => `\u0000${span.literal.text}`).join('');
  return undefined;
}

export function sentencesIn(root: string): Sentence[] {
  const found: Sentence[] = [];
  for (const path of files(join(root, 'src'))) {
    const file = relative(root, path);
    if (SKIPPED_FILES.some((pattern) => pattern.test(file))) continue;
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const text = literalText(node);
      if (text !== undefined) {
        if (SENTENCE.test(text) && !internal(node)) {
          found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text });
        }
        if (!ts.isTemplateExpression(node)) return;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
