// A tiny local SMTP server (EHLO, MAIL, RCPT, DATA, RSET, QUIT) that keeps what it receives, for tests of
// e-mails sent through the real SMTP client (nodemailer).
import { createServer, type Server, type Socket } from 'node:net';

export interface ReceivedMail {
  /** The MAIL FROM line as sent. */
  from: string;
  to: string[];
  data: string;
}

export interface SmtpSink {
  url: string;
  messages: ReceivedMail[];
  close(): Promise<void>;
}

/** `rejectRcpt`: every recipient is refused (550), as a server that knows none of them. */
export function startSmtpSink(opts: { rejectRcpt?: boolean } = {}): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const server: Server = createServer((sock: Socket) => {
    let buf = '';
    let inData = false;
    let cur: ReceivedMail = { from: '', to: [], data: '' };
    const say = (s: string) => sock.write(`${s}\r\n`);
    say('220 sink ESMTP');
    sock.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          cur.data += buf.slice(0, end);
          buf = buf.slice(end + 5);
          inData = false;
          messages.push(cur);
          cur = { from: '', to: [], data: '' };
          say('250 OK queued');
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 2);
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === 'EHLO') say('250-sink\r\n250 8BITMIME');
        else if (cmd === 'HELO' || cmd === 'NOOP') say('250 OK');
        else if (cmd === 'MAIL') {
          cur.from = line;
          say('250 OK');
        } else if (cmd === 'RCPT') {
          if (opts.rejectRcpt) say('550 No such user');
          else {
            cur.to.push(/<([^>]*)>/.exec(line)?.[1] ?? line);
            say('250 OK');
          }
        } else if (cmd === 'DATA') {
          inData = true;
          say('354 End data with <CR><LF>.<CR><LF>');
        } else if (cmd === 'RSET') {
          cur = { from: '', to: [], data: '' };
          say('250 OK');
        } else if (cmd === 'QUIT') {
          say('221 Bye');
          sock.end();
        } else say('502 Not implemented');
      }
    });
    sock.on('error', () => {});
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      resolve({
        url: `smtp://127.0.0.1:${port}`,
        messages,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}
