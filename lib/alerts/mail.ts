import 'server-only';
import nodemailer from 'nodemailer';
import type { PortalConfig } from '../config';
import type { Message } from '.';

/** The mail channel of alerts: nodemailer over SMTP_URL (one transport per process), or null when none is set. */

let cached: { url: string; transport: nodemailer.Transporter } | undefined;

export function alertMailer(config: Pick<PortalConfig, 'SMTP_URL' | 'ALERT_EMAIL_FROM'>): ((message: Message) => Promise<void>) | null {
  const url = config.SMTP_URL;
  if (!url) return null;
  if (cached?.url !== url)
    cached = { url, transport: nodemailer.createTransport(url, { connectionTimeout: 10_000, socketTimeout: 20_000 }) };
  const { transport } = cached;
  return async (message) => {
    await transport.sendMail({ from: config.ALERT_EMAIL_FROM, to: message.to, subject: message.subject, text: message.text });
  };
}
