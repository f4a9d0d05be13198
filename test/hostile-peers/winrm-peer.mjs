// A hostile WinRM service for test/hostile-peers/winrm.test.ts, run in a worker thread so its
// own work (making megabytes, dripping bytes) is off the host's loop. It speaks just enough
// WS-Management to get a client to the answer under test: `workerData.scenario` names how it
// misbehaves, and at which step (Create, Command, Receive) when the step matters.
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const SOAP = 'application/soap+xml;charset=UTF-8';
const ENVELOPE_OPEN =
  '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell" ' +
  'xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd"><s:Header/><s:Body>';
const envelope = (body) => `${ENVELOPE_OPEN}${body}</s:Body></s:Envelope>`;
const SHELL_ID = '11111111-2222-3333-4444-555555555555';
const COMMAND_ID = 'AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE';

/** The honest answers, by action. */
const honest = {
  create: envelope(`<rsp:Shell><rsp:ShellId>${SHELL_ID}</rsp:ShellId></rsp:Shell>`),
  command: envelope(`<rsp:CommandResponse><rsp:CommandId>${COMMAND_ID}</rsp:CommandId></rsp:CommandResponse>`),
  receive: envelope(
    `<rsp:ReceiveResponse><rsp:Stream Name="stdout" CommandId="${COMMAND_ID}">${Buffer.from('peer ok\r\n').toString('base64')}</rsp:Stream>` +
      `<rsp:Stream Name="stdout" CommandId="${COMMAND_ID}" End="true"></rsp:Stream><rsp:Stream Name="stderr" CommandId="${COMMAND_ID}" End="true"></rsp:Stream>` +
      `<rsp:CommandState CommandId="${COMMAND_ID}" State="http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Done"><rsp:ExitCode>0</rsp:ExitCode></rsp:CommandState></rsp:ReceiveResponse>`,
  ),
  other: envelope(''),
};

const fault = (reason, code = 2150858770) =>
  envelope(
    `<s:Fault><s:Code><s:Value>s:Receiver</s:Value><s:Subcode><s:Value>w:InternalError</s:Value></s:Subcode></s:Code>` +
      `<s:Reason><s:Text xml:lang="en-US">${reason}</s:Text></s:Reason>` +
      `<s:Detail><f:WSManFault xmlns:f="http://schemas.microsoft.com/wbem/wsman/1/wsmanfault" Code="${code}"><f:Message>${reason}</f:Message></f:WSManFault></s:Detail></s:Fault>`,
  );

function actionOf(body) {
  for (const [name, marker] of [['create', '/transfer/Create<'], ['command', '/shell/Command<'], ['receive', '/shell/Receive<']]) if (body.includes(marker)) return name;
  return 'other';
}

/** A CHALLENGE message (type 2) announcing target information, with `patch` applied to it. */
function challenge(patch) {
  const info = Buffer.alloc(8); // one MsvAvEOL pair, padded
  const message = Buffer.alloc(48 + info.length);
  message.write('NTLMSSP\0', 0, 'latin1');
  message.writeUInt32LE(2, 8);
  message.writeUInt32LE((0x1 | 0x200 | 0x80000 | 0x800000) >>> 0, 20);
  message.fill(7, 24, 32);
  message.writeUInt16LE(info.length, 40);
  message.writeUInt32LE(48, 44);
  info.copy(message, 48);
  return patch(message);
}

const NTLM_CHALLENGES = {
  // Target information said to lie far past the message's end.
  'ntlm-offset': () => challenge((m) => (m.writeUInt32LE(0xfffffff0, 44), m.writeUInt16LE(0xffff, 40), m)),
  // AV pairs whose lengths run past the end (a timestamp cut short among them).
  'ntlm-pairs': () => {
    const pairs = Buffer.alloc(16);
    pairs.writeUInt16LE(1, 0); // a computer name of 4 bytes
    pairs.writeUInt16LE(4, 2);
    pairs.write('ab\0\0', 4, 'latin1');
    pairs.writeUInt16LE(7, 8); // a timestamp of 8 bytes, with 4 present
    pairs.writeUInt16LE(8, 10);
    const message = challenge((m) => m);
    const out = Buffer.concat([message.subarray(0, 48), pairs]);
    out.writeUInt16LE(pairs.length, 40);
    return out;
  },
  // A pair whose length runs 64 KB past the end.
  'ntlm-pair-length': () => {
    const pairs = Buffer.alloc(8);
    pairs.writeUInt16LE(2, 0);
    pairs.writeUInt16LE(0xffff, 2);
    const message = challenge((m) => m);
    const out = Buffer.concat([message.subarray(0, 48), pairs]);
    out.writeUInt16LE(pairs.length, 40);
    return out;
  },
  // Not a CHALLENGE at all: a type 3 message.
  'ntlm-type': () => challenge((m) => (m.writeUInt32LE(3, 8), m)),
};

const scenario = workerData.scenario;
/** The step whose answer is the hostile one. */
const at = workerData.at ?? 'create';

function answer(req, res, body) {
  const action = actionOf(body);
  const send = (status, text, type = SOAP) => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  if (scenario.startsWith('ntlm-')) {
    const auth = req.headers.authorization ?? '';
    if (auth.startsWith('Negotiate ') && body === '') {
      const token = scenario === 'ntlm-huge-header' ? 'A'.repeat(200_000) : NTLM_CHALLENGES[scenario]().toString('base64');
      res.writeHead(401, { 'www-authenticate': `Negotiate ${token}`, 'content-length': 0 });
      return res.end();
    }
    return send(401, ''); // the AUTHENTICATE (if the client got that far) is refused
  }
  if (action !== at) return send(200, honest[action]);
  switch (scenario) {
    case 'honest':
      return send(200, honest[action]);
    case 'endless': {
      // A 200 whose body never ends.
      res.writeHead(200, { 'content-type': SOAP });
      res.write(`${ENVELOPE_OPEN}<rsp:Shell><rsp:ShellId>`);
      const chunk = 'A'.repeat(64 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      return pump();
    }
    case 'drip': {
      // The honest answer, one byte per write (chunked: the client cannot know the end before
      // it comes). setImmediate, not a timer: the pace is the machine's, so a busy one only slows it.
      res.writeHead(200, { 'content-type': SOAP });
      res.socket.setNoDelay(true);
      const bytes = Buffer.from(honest[action]);
      let i = 0;
      const next = () => {
        if (res.destroyed) return;
        if (i === bytes.length) return void res.end();
        res.write(bytes.subarray(i, ++i));
        setImmediate(next);
      };
      return next();
    }
    case 'drip-forever': {
      res.writeHead(200, { 'content-type': SOAP });
      res.write(ENVELOPE_OPEN);
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 20);
      return undefined;
    }
    case 'huge':
      // Announced and sent: 64 MB of one base64 stream.
      res.writeHead(200, { 'content-type': SOAP, 'content-length': 64 * 1024 * 1024 });
      return pumpBytes(res, 64 * 1024 * 1024);
    case 'huge-error-page':
      // A 500 that is a 16 MB HTML page.
      res.writeHead(500, { 'content-type': 'text/html', 'content-length': 16 * 1024 * 1024 });
      return pumpBytes(res, 16 * 1024 * 1024);
    case 'malformed':
      return send(200, `${ENVELOPE_OPEN}<rsp:Shell><rsp:ShellId>${SHELL_ID}</rsp:Shell></s:Body></s:Envelope>`);
    case 'fault-no-gt-300k':
      return send(200, `${ENVELOPE_OPEN}${'<Fault'.repeat(50_000)}`);
    case 'fault-no-gt-150k':
      return send(500, `${ENVELOPE_OPEN}${'<Fault'.repeat(25_000)}`);
    case 'fault-no-gt-401-html':
      return send(401, `<html>${'<Fault'.repeat(25_000)}`, 'text/html');
    case 'attribute-60k':
      return send(200, envelope(`<rsp:ReceiveResponse><rsp:Stream Name="stdout" ${'a'.repeat(60_000)}>QQ==</rsp:Stream></rsp:ReceiveResponse>`));
    case 'deep':
      return send(200, envelope(`${'<rsp:x>'.repeat(10_000)}${'</rsp:x>'.repeat(10_000)}`));
    case 'char-ref':
      return send(200, envelope(`<rsp:Shell><rsp:ShellId>&#x110000;</rsp:ShellId></rsp:Shell>`));
    case 'char-ref-fault-500':
      return send(500, fault('bad &#1114112; reference'));
    case 'entity':
      return send(200, `<!DOCTYPE s:Envelope [<!ENTITY a "${'A'.repeat(1000)}"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>${envelope(`<rsp:Shell><rsp:ShellId>&b;</rsp:ShellId></rsp:Shell>`)}`);
    case 'fault-500':
      return send(500, fault('the service refused'));
    case 'fault-200':
      return send(200, fault('the service refused'));
    case 'exit-code':
      return send(200, honest.receive.replace('<rsp:ExitCode>0<', `<rsp:ExitCode>${'9'.repeat(5000)}<`));
    case 'reset':
      // Headers and half a body, then a TCP reset.
      res.writeHead(200, { 'content-type': SOAP, 'content-length': 4096 });
      res.write(honest[action].slice(0, 100));
      return setTimeout(() => res.socket.resetAndDestroy(), 50);
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}

function pumpBytes(res, total) {
  const chunk = Buffer.alloc(64 * 1024, 'A');
  let sent = 0;
  const pump = () => {
    while (!res.destroyed && sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

const server = createServer((req, res) => {
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => answer(req, res, Buffer.concat(parts).toString('utf8')));
  res.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
