import nodemailer, { type Transporter } from 'nodemailer';
import { logger } from './logger.js';

/** Sends e-mail (review decisions, webhook failure alerts) when SMTP_URL is configured; the portal notification is the record either way. */
export class Mailer {
  private readonly transport: Transporter | undefined;

  constructor(
    smtpUrl: string | undefined,
    private readonly from: string,
  ) {
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : undefined;
  }

  get enabled(): boolean {
    return !!this.transport;
  }

  /** Never throws: a mail server outage must not undo a review decision that is already committed. */
  async send(to: string, subject: string, text: string): Promise<boolean> {
    if (!this.transport) return false;
    try {
      await this.transport.sendMail({ from: this.from, to, subject, text });
      return true;
    } catch (err) {
      logger.warn({ err, to, subject }, 'decision e-mail could not be sent; the portal notification stands');
      return false;
    }
  }

  close(): void {
    this.transport?.close();
  }
}
