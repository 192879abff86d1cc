import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import addressparser from 'nodemailer/lib/addressparser';
import type { RenderedMail } from './render';
import type { MailSettings } from './settings';

/** One outgoing message as the mailer takes it. */
export interface Outgoing extends RenderedMail {
  id: string;
  /** The store's name: the sender's display name (D42). */
  storeName: string;
  recipient: string;
}

/**
 * How one attempt ended (D42):
 * - `sent`: the SMTP server accepted the message;
 * - `not_sent`: the service has no SMTP server (in development the message went to a file);
 * - `refused`: the mail library refused the address: retrying cannot help;
 * - `failed`: the server refused, timed out or dropped the connection: retried on the schedule.
 * `error` never holds the address.
 */
export type SendResult = { outcome: 'sent' | 'not_sent' } | { outcome: 'refused' | 'failed'; error: string };

export interface Mailer {
  send(message: Outgoing): Promise<SendResult>;
  close(): void;
}

/**
 * True when the address is one the mail library takes as exactly one plain address: its
 * parser finds a single address equal to the text, with one `@` between a local part and a
 * domain. Anything else (a name, a group, several addresses, line breaks) is refused.
 */
export function acceptableAddress(recipient: string): boolean {
  const parsed = addressparser(recipient);
  if (parsed.length !== 1) return false;
  const only = parsed[0]!;
  return 'address' in only && only.address === recipient && /^[^\s@]+@[^\s@]+$/.test(recipient);
}

/**
 * The mail library's error, reduced to what may be stored and logged: every address in it
 * (a server's answer may quote the recipient) replaced, and no message text.
 */
function describe(err: unknown, recipient: string): string {
  const e = err as { code?: string; responseCode?: number; message?: string };
  const message = (e.message ?? String(err))
    .split(recipient)
    .join('<address>')
    .replace(/[^\s<>"'(),;:]+@[^\s<>"'(),;:]+/g, '<address>')
    .slice(0, 300);
  return [e.code, e.responseCode, message].filter((part) => part !== undefined && part !== '').join(' ');
}

/**
 * The mailer of a process (D42): SMTP when `smtpUrl` is set; else, in development, `.eml`
 * files under `mailDir`; else nothing (`not_sent`). Remote content is never fetched.
 */
export function createMailer(settings: MailSettings): Mailer {
  const smtp = settings.smtpUrl
    ? nodemailer.createTransport({
        url: settings.smtpUrl,
        connectionTimeout: settings.mailTimeoutMs,
        greetingTimeout: settings.mailTimeoutMs,
        socketTimeout: settings.mailTimeoutMs,
        disableFileAccess: true,
        disableUrlAccess: true,
      })
    : undefined;
  const files =
    !smtp && settings.mailDir ? nodemailer.createTransport({ streamTransport: true, buffer: true }) : undefined;

  return {
    async send(message) {
      if (!acceptableAddress(message.recipient))
        return { outcome: 'refused', error: 'the mail library refuses the address' };
      const mail = {
        from: { name: message.storeName, address: settings.mailFrom },
        to: message.recipient,
        subject: message.subject,
        text: message.text,
        html: message.html,
        messageId: `<${message.id}@${settings.mailFrom.split('@')[1]}>`,
        disableFileAccess: true,
        disableUrlAccess: true,
      };
      if (smtp) {
        try {
          await smtp.sendMail(mail);
          return { outcome: 'sent' };
        } catch (err) {
          const e = err as { code?: string; responseCode?: number };
          // An envelope refused before any server answered is the library's verdict on the address.
          const library = e.code === 'EENVELOPE' && e.responseCode === undefined;
          return { outcome: library ? 'refused' : 'failed', error: describe(err, message.recipient) };
        }
      }
      if (files && settings.mailDir) {
        try {
          const info = await files.sendMail(mail);
          await mkdir(settings.mailDir, { recursive: true });
          await writeFile(path.join(settings.mailDir, `${message.id}.eml`), info.message as Buffer, { mode: 0o600 });
        } catch (err) {
          // A full or unwritable disk: retried like a server that is down.
          return { outcome: 'failed', error: describe(err, message.recipient) };
        }
      }
      return { outcome: 'not_sent' };
    },
    close() {
      smtp?.close();
    },
  };
}
