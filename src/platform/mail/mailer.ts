import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
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
  if (options.mailUrl !== undefined) {
    const transport: Transporter = nodemailer.createTransport(options.mailUrl);
    return {
      send: async (message) => void (await transport.sendMail({ from: options.from, ...message })),
      close: () => transport.close(),
    };
  }
  const outbox = join(options.dataDir, 'mail');
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message) {
      const info = await transport.sendMail({ from: options.from, ...message });
      await mkdir(outbox, { recursive: true });
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      await writeFile(join(outbox, `${stamp}-${randomUUID()}.eml`), info.message as Buffer);
    },
    close: () => transport.close(),
  };
}
