import { LANGUAGE_TAGS, type Locale } from '../i18n/locale.ts';
import { message } from '../i18n/translate.ts';
import type { MailMessage } from './mailer.ts';

/** Laravel's notification mail: a line of why, one button with its link, then closing lines. */
export interface ActionMail {
  subject: string;
  intro: string;
  action: string;
  link: string;
  outro: string[];
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The plain-text and HTML bodies of such a mail; the link is written out in full in both. */
export function actionMail(mail: ActionMail): Omit<MailMessage, 'to'> {
  const text = [mail.intro, '', `${mail.action}: ${mail.link}`, ...mail.outro.flatMap((line) => ['', line])].join('\n');
  const paragraphs = [
    escapeHtml(mail.intro),
    `<a href="${escapeHtml(mail.link)}">${escapeHtml(mail.action)}</a>`,
    ...mail.outro.map(escapeHtml),
  ];
  const html = paragraphs.map((paragraph) => `<p>${paragraph}</p>`).join('\n');
  return { subject: mail.subject, text, html };
}

/**
 * One of the catalogue's action mails (`mail.reset`, `mail.verify`: subject, intro, action, outro)
 * in `locale`, with `extra` lines before the outro. A mail not in English says its language.
 */
export function catalogueMail(locale: Locale, kind: 'reset' | 'verify', link: string, extra: string[] = []): Omit<MailMessage, 'to'> {
  const mail = actionMail({
    subject: message(locale, `mail.${kind}.subject`),
    intro: message(locale, `mail.${kind}.intro`),
    action: message(locale, `mail.${kind}.action`),
    link,
    outro: [...extra, message(locale, `mail.${kind}.outro`)],
  });
  return locale === 'en' ? mail : { ...mail, headers: { 'Content-Language': LANGUAGE_TAGS[locale] } };
}
