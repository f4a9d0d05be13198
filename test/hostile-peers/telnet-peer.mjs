// A hostile Telnet device (node:net), run in a worker thread by telnet.test.ts. It asks for no
// login: it shows the shell prompt "box# " (or, per scenario, something else) and answers the
// command as its scenario says.
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

const { scenario } = workerData;
const PROMPT = 'box# ';
const ONE_BYTE_WRITES = 400_000;
const IAC = 255, DO = 253, WILL = 251, SB = 250;

function pumpForever(socket, block) {
  const pump = () => {
    while (!socket.destroyed) if (!socket.write(block)) return void socket.once('drain', pump);
  };
  pump();
}

function onCommand(socket) {
  switch (scenario) {
    case 'endless':
      return pumpForever(socket, Buffer.alloc(16 * 1024, 0x61));
    case 'huge': {
      let left = 8 * 1024 * 1024;
      const block = Buffer.alloc(64 * 1024, 0x62);
      const pump = () => {
        while (left > 0 && !socket.destroyed) {
          left -= block.length;
          if (!socket.write(block)) return void socket.once('drain', pump);
        }
        socket.end(PROMPT);
      };
      return pump();
    }
    case 'bytes': {
      // One write (one segment, Nagle off) per byte.
      let sent = 0;
      const pump = () => {
        while (sent < ONE_BYTE_WRITES && !socket.destroyed) {
          sent++;
          if (!socket.write('y')) return void socket.once('drain', pump);
        }
        socket.end(`\r\n${PROMPT}`);
      };
      return pump();
    }
    case 'crash':
      socket.write('partial output\r\n');
      return setTimeout(() => socket.resetAndDestroy(), 50);
  }
}

const server = net.createServer({ noDelay: true }, (socket) => {
  socket.setNoDelay(true);
  socket.on('error', () => {});
  switch (scenario) {
    case 'drip': {
      // Never the prompt, never idle: a byte every 20 ms.
      const timer = setInterval(() => socket.write('.'), 20);
      return socket.on('close', () => clearInterval(timer));
    }
    case 'regex':
      // An ordinary banner line that is not a prompt: ~40 word characters and no > or #.
      return socket.write(`${'x'.repeat(40)}!\r\n`);
    case 'regex-slow': {
      // Every line costs a backtracking prompt ~tens of ms: the run's budget, not one test's limit, ends it.
      const timer = setInterval(() => socket.write(`${'x'.repeat(20)}!\r\n`), 5);
      return socket.on('close', () => clearInterval(timer));
    }
    case 'malformed': {
      // Negotiation gone wrong: a flood of DO / WILL for every option, bare IACs, then a
      // subnegotiation that never ends, then the prompt (inside it: never seen as text).
      const flood = [];
      for (let i = 0; i < 20_000; i++) flood.push(IAC, i % 2 ? DO : WILL, i % 256, IAC, 0x01);
      socket.write(Buffer.from(flood));
      socket.write(Buffer.from([IAC, SB, 24, 1, 2, 3]));
      return socket.write(PROMPT);
    }
  }
  socket.write(PROMPT);
  let line = '';
  socket.on('data', (data) => {
    line += data.toString('latin1');
    if (!line.includes('\n')) return;
    line = '';
    onCommand(socket);
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
