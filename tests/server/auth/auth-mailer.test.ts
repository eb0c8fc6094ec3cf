// server/mailer.ts (an app's Mailer: sendMail sends with the one of its state) against a minimal local SMTP server.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Mailer, MailError, mailEnabled } from '../../../server/mailer';

interface Received {
  from: string;
  to: string[];
  data: string;
}

/** Speaks just enough SMTP: EHLO, MAIL, RCPT (refuses *@refused.example), DATA, QUIT. */
function fakeSmtp(received: Received[]): Server {
  return createServer((sock: Socket) => {
    let buf = '';
    let inData = false;
    let cur: Received = { from: '', to: [], data: '' };
    const say = (s: string) => sock.write(`${s}\r\n`);
    say('220 fake.smtp ESMTP');
    sock.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      let idx: number;
      while ((idx = buf.indexOf('\r\n')) >= 0) {
        const line = buf.slice(0, idx);
        buf = buf.slice(idx + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received.push(cur);
            cur = { from: '', to: [], data: '' };
            say('250 OK queued');
          } else {
            cur.data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
          }
          continue;
        }
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === 'EHLO' || cmd === 'HELO') say('250-fake.smtp\r\n250 8BITMIME');
        else if (cmd === 'MAIL') {
          cur.from = line;
          say('250 OK');
        } else if (cmd === 'RCPT') {
          if (line.includes('@refused.example')) say('550 No such user');
          else {
            cur.to.push(line);
            say('250 OK');
          }
        } else if (cmd === 'DATA') {
          inData = true;
          say('354 End data with <CR><LF>.<CR><LF>');
        } else if (cmd === 'RSET') say('250 OK');
        else if (cmd === 'QUIT') {
          say('221 Bye');
          sock.end();
        } else say('502 Not implemented');
      }
    });
    sock.on('error', () => {});
  });
}

const received: Received[] = [];
let server: Server;
let port: number;
const mailer = new Mailer();
beforeAll(async () => {
  server = fakeSmtp(received);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  mailer.close();
  await new Promise((r) => server?.close(r));
});

describe('sendMail', () => {
  it('is a no-op returning false when SMTP is not configured', async () => {
    expect(mailEnabled({ smtp: null })).toBe(false);
    expect(await mailer.send({ smtp: null }, { to: 'a@example.com', subject: 's', text: 't' })).toBe(false);
  });

  it('delivers through the configured SMTP server', async () => {
    const config = { smtp: { url: `smtp://127.0.0.1:${port}`, from: 'Studio <no-reply@studio.example>' } };
    expect(mailEnabled(config)).toBe(true);
    const ok = await mailer.send(config, { to: 'bob@example.com', subject: 'You are invited', text: 'Join the Teamspace "Alpha".' });
    expect(ok).toBe(true);
    const last = received[received.length - 1];
    expect(last.from).toContain('no-reply@studio.example');
    expect(last.to.join()).toContain('bob@example.com');
    expect(last.data).toContain('Subject: You are invited');
    expect(last.data).toContain('Join the Teamspace "Alpha".');
  });

  it('rejects with MailError when the server refuses the recipient or cannot be reached', async () => {
    const config = { smtp: { url: `smtp://127.0.0.1:${port}`, from: 'no-reply@studio.example' } };
    await expect(mailer.send(config, { to: 'x@refused.example', subject: 's', text: 't' })).rejects.toBeInstanceOf(MailError);
    // A server nobody can talk to: it hangs up on every connection. (A port closed again after listening on it
    // could be taken by another process in between; this one stays ours for the whole check.)
    const dead = createServer((socket) => socket.destroy());
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', () => r()));
    const deadPort = (dead.address() as AddressInfo).port;
    try {
      await expect(
        mailer.send({ smtp: { url: `smtp://127.0.0.1:${deadPort}`, from: 'no-reply@studio.example' } }, { to: 'a@example.com', subject: 's', text: 't' }),
      ).rejects.toThrow(/E-mail not sent/);
    } finally {
      await new Promise((r) => dead.close(r));
    }
  });
});
