import { SMTPServer } from 'smtp-server';
import { afterAll } from 'vitest';
import { findFreePort } from '../../src/platform/embedded-postgres.js';

export interface ReceivedMail {
  to: string[];
  raw: string;
}

export interface SmtpInbox {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  /** Every message received, in order. */
  mail: ReceivedMail[];
}

const servers: SMTPServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

/** A real SMTP server on loopback that keeps what Plaza sends it; closed after the test file. */
export async function startSmtpInbox(): Promise<SmtpInbox> {
  const port = await findFreePort();
  const mail: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk) => (raw += chunk));
      stream.on('end', () => {
        mail.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `smtp://127.0.0.1:${port}`, mail };
}
