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
