// A hostile SSH device (ssh2's Server), run in a worker thread by ssh.test.ts. It logs anyone
// in, greets a shell with "sw# ", and answers every command (shell or exec) as its scenario says.
import { generateKeyPairSync } from 'node:crypto';
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import ssh2 from 'ssh2';

const { Server } = ssh2;
const { scenario } = workerData;
const PROMPT = 'sw# ';
const ONE_BYTE_PACKETS = 400_000;

/** Writes `count` one-byte packets (each write is one SSH channel-data packet), minding backpressure. */
function oneBytePackets(stream, count, then) {
  let sent = 0;
  const pump = () => {
    while (sent < count) {
      sent++;
      if (!stream.write(Buffer.of(0x79))) return void stream.once('drain', pump);
    }
    then();
  };
  pump();
}

function answer(stream, socket, exec) {
  const end = () => {
    if (exec) {
      stream.exit(0);
      stream.end();
    } else stream.write(`\r\n${PROMPT}`);
  };
  switch (scenario) {
    case 'endless': {
      const block = Buffer.alloc(16 * 1024, 0x61);
      const pump = () => {
        while (!stream.destroyed && stream.writable) if (!stream.write(block)) return void stream.once('drain', pump);
      };
      return pump();
    }
    case 'drip': {
      const timer = setInterval(() => (stream.writable ? stream.write('.') : clearInterval(timer)), 20);
      return stream.on('close', () => clearInterval(timer));
    }
    case 'bytes':
      return oneBytePackets(stream, ONE_BYTE_PACKETS, end);
    case 'huge': {
      let left = 8 * 1024 * 1024;
      const block = Buffer.alloc(64 * 1024, 0x62);
      const pump = () => {
        while (left > 0 && stream.writable) {
          left -= block.length;
          if (!stream.write(block)) return void stream.once('drain', pump);
        }
        end();
      };
      return pump();
    }
    case 'regex':
      // One ordinary line that is not a prompt: ~40 word characters and no > or #.
      return stream.write(`${'x'.repeat(40)}!\r\n`);
    case 'regex-slow': {
      // Every line costs a backtracking prompt_regex some ms: the run's budget, not one test's limit, ends it.
      const timer = setInterval(() => (stream.writable ? stream.write(`${'x'.repeat(20)}!\r\n`) : clearInterval(timer)), 5);
      return stream.on('close', () => clearInterval(timer));
    }
    case 'crash':
      stream.write('partial output\r\n');
      return setTimeout(() => socket.resetAndDestroy(), 50);
  }
}

function sshServer() {
  // RSA in PEM: ssh2's own ed25519 generator now and then makes a key its parser refuses.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'pkcs1', format: 'pem' } });
  const server = new Server({ hostKeys: [privateKey] }, (client) => {
    const socket = client._sock;
    client.on('error', () => {});
    client.on('authentication', (ctx) => ctx.accept());
    client.on('ready', () => {
      client.on('session', (accept) => {
        const session = accept();
        session.on('pty', (accept) => accept?.());
        session.on('exec', (accept) => answer(accept(), socket, true));
        session.on('shell', (accept) => {
          const stream = accept();
          stream.write(`Welcome\r\n${PROMPT}`);
          let line = '';
          stream.on('data', (data) => {
            line += data;
            if (!line.includes('\n')) return;
            line = '';
            answer(stream, socket, false);
          });
        });
      });
    });
  });
  return server;
}

// "malformed": not an SSH server at all past its banner.
function garbageServer() {
  return net.createServer((socket) => {
    socket.on('error', () => {});
    socket.write('SSH-2.0-hostile\r\n');
    socket.write(Buffer.alloc(64 * 1024, 0xff));
  });
}

const server = scenario === 'malformed' ? garbageServer() : sshServer();
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
