import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers, e.g. `Content-Language` of a mail not in English. */
  headers?: Record<string, string>;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * SMTP when MAIL_URL is set; otherwise each message becomes an `.eml` file in DATA_DIR/mail/, so
 * a fresh clone can follow a password-reset link without a mail server.
 */
export function createMailer(options: { mailUrl: string | undefined; from: string; dataDir: string }): Mailer {
  // nodemailer is loaded with the first message, not at start: it is half a second and ~25 MB of a
  // start that mostly never sends mail (docs/deployment.md, "The embedded database's memory").
  let transport: Promise<Transporter> | undefined;
  const connect = (): Promise<Transporter> =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      options.mailUrl !== undefined
        ? nodemailer.createTransport(options.mailUrl)
        : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
    ));
  const close = () =>
    void transport?.then(
      (open) => open.close(),
      () => undefined,
    );
  if (options.mailUrl !== undefined) {
    return {
      send: async (message) => void (await (await connect()).sendMail({ from: options.from, ...message })),
      close,
    };
  }
  const outbox = join(options.dataDir, 'mail');
  return {
    async send(message) {
      const info = await (await connect()).sendMail({ from: options.from, ...message });
      await mkdir(outbox, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      await writeFile(join(outbox, `${stamp}-${randomUUID()}.eml`), info.message as Buffer);
    },
    close,
  };
}
