// A simulated WinRM service: a WS-Management responder on node:http that reads the SOAP the
// client sends and answers each shell action as Windows does (Create, Command, Receive,
// Signal, Delete), with basic or NTLM authentication. Requests missing what WS-Management
// requires get a SOAP fault, so a client is proven against the protocol, not against itself.
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { makeSimulatorCertificate } from '../certificate.js';
import type { Socket } from 'node:net';
import { ACTIONS, SHELL_URI, TERMINATE, xmlEscape } from '../../bridges/winrm/soap.js';
import { readXml, XmlMalformedError, type XmlDocument, type XmlNames } from '../../bridges/winrm/xml-reader.js';
import { challengeMessage, checkAuthenticate, ntlmType } from './ntlm-server.js';
import type { WinrmCommand, WinrmFixture } from './types.js';

const MAX_REQUEST_BYTES = 512 * 1024;
const SOAP_ENVELOPE_NS = 'http://www.w3.org/2003/05/soap-envelope';
/** What the simulator reads from a request (Signal and DesiredStream for their attributes: a Signal holds its Code). */
const REQUEST_NAMES: XmlNames = {
  withText: ['MessageID', 'Action', 'To', 'ResourceURI', 'ReplyTo', 'OperationTimeout', 'MaxEnvelopeSize', 'Selector', 'Option', 'InputStreams', 'OutputStreams', 'Command', 'Code'],
  withoutText: ['Envelope', 'DesiredStream', 'Signal'],
};
/** Stdout bytes per Receive at most: base64 and the envelope stay within the client's 153,600-byte MaxEnvelopeSize. */
const OUTPUT_PIECE_BYTES = 96 * 1024;
const DONE = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Done';
const RUNNING = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/Running';

export interface WinrmEvent {
  /** create, command, receive, signal, delete; or auth-failed, fault. */
  action: string;
  /** basic or ntlm, and the user it proved. */
  auth: string | null;
  user: string | null;
  shellId: string | null;
  /** The command line (command), or the fault's reason. */
  detail: string | null;
}

export interface WinrmSimulator {
  readonly port: number;
  /** The HTTPS listener's port, when the fixture serves https. */
  readonly httpsPort: number | null;
  readonly events: WinrmEvent[];
  /** Shells created and not deleted yet. */
  readonly openShells: number;
  close(): Promise<void>;
}

interface Running {
  spec: WinrmCommand | null;
  commandLine: string;
  readyAt: number;
  /** Receives answered with output so far. */
  sent: number;
  /** Bytes of stdout sent so far. */
  offset: number;
  terminated: boolean;
}

function envelope(action: string, relatesTo: string | null, body: string): string {
  return (
    `<s:Envelope xml:lang="en-US" xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" ` +
    `xmlns:x="http://schemas.xmlsoap.org/ws/2004/09/transfer" xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd" ` +
    `xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell" xmlns:p="http://schemas.microsoft.com/wbem/wsman/1/wsman.xsd">` +
    `<s:Header><a:Action>${action}</a:Action><a:MessageID>uuid:${randomUUID().toUpperCase()}</a:MessageID>` +
    `<a:To>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</a:To>` +
    (relatesTo ? `<a:RelatesTo>${xmlEscape(relatesTo)}</a:RelatesTo>` : '') +
    `</s:Header><s:Body>${body}</s:Body></s:Envelope>`
  );
}

function faultBody(subcode: string, code: number, reason: string): string {
  return (
    `<s:Fault><s:Code><s:Value>s:Sender</s:Value><s:Subcode><s:Value>w:${subcode}</s:Value></s:Subcode></s:Code>` +
    `<s:Reason><s:Text xml:lang="en-US">${xmlEscape(reason)}</s:Text></s:Reason>` +
    `<s:Detail><f:WSManFault xmlns:f="http://schemas.microsoft.com/wbem/wsman/1/wsmanfault" Code="${code}" Machine="simulator"><f:Message>${xmlEscape(reason)}</f:Message></f:WSManFault></s:Detail></s:Fault>`
  );
}

/** The PowerShell command inside `powershell.exe "…"` (the client's \" unescaped), else the line. */
export function innerCommand(commandLine: string): string {
  const match = /^powershell(?:\.exe)?\s+"([\s\S]*)"$/i.exec(commandLine.trim());
  return match ? match[1]!.replace(/\\"/g, '"') : commandLine;
}

function findCommand(fixture: WinrmFixture, commandLine: string): WinrmCommand | null {
  const inner = innerCommand(commandLine);
  return fixture.commands.find((c) => (c.command !== null ? c.command === inner : inner.includes(c.contains!))) ?? null;
}

export async function startWinrmSimulator(fixture: WinrmFixture, host = '127.0.0.1', port = 0, httpsPort = 0): Promise<WinrmSimulator> {
  const events: WinrmEvent[] = [];
  const shells = new Map<string, Map<string, Running>>();
  const challenges = new WeakMap<Socket, Buffer>();
  const timers = new Set<NodeJS.Timeout>();
  const { username, password } = fixture.credentials;

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, envelope(`${ACTIONS.create}Fault`, null, faultBody('InternalError', 2150858770, `simulator failure: ${(error as Error).message}`)));
      else res.destroy();
    });
  };
  const server = http.createServer(onRequest);
  server.keepAliveTimeout = 30_000;
  let tlsServer: https.Server | null = null;
  if (fixture.httpsPort !== null) {
    const certificate = await makeSimulatorCertificate({ commonName: 'localhost', names: [], expiresInDays: 365 });
    tlsServer = https.createServer({ cert: certificate.cert, key: certificate.key }, onRequest);
    tlsServer.keepAliveTimeout = 30_000;
  }

  function send(res: ServerResponse, status: number, body: string, headers: Record<string, string | string[]> = {}): void {
    res.writeHead(status, { 'content-type': 'application/soap+xml;charset=UTF-8', 'content-length': Buffer.byteLength(body), server: 'Microsoft-HTTPAPI/2.0', ...headers });
    res.end(body);
  }

  function unauthorized(res: ServerResponse, why: string): void {
    events.push({ action: 'auth-failed', auth: null, user: null, shellId: null, detail: why });
    const offers = [...(fixture.auth !== 'basic' ? ['Negotiate'] : []), ...(fixture.auth !== 'ntlm' ? ['Basic realm="WSMAN"'] : [])];
    res.writeHead(401, { 'www-authenticate': offers, 'content-length': 0, server: 'Microsoft-HTTPAPI/2.0' });
    res.end();
  }

  /** Who the request proves to be, or null after answering it (a 401 or a CHALLENGE). */
  function authenticate(req: IncomingMessage, res: ServerResponse): { auth: string; user: string } | null {
    const header = req.headers.authorization ?? '';
    const [scheme, token = ''] = header.split(/\s+/, 2) as [string, string?];
    if (/^basic$/i.test(scheme) && fixture.auth !== 'ntlm') {
      const [user, ...rest] = Buffer.from(token, 'base64').toString('utf8').split(':');
      if (user === username && rest.join(':') === password && !username.includes('\\')) return { auth: 'basic', user };
      unauthorized(res, `basic: wrong credentials for ${JSON.stringify(user)}`);
      return null;
    }
    if (/^(negotiate|ntlm)$/i.test(scheme) && fixture.auth !== 'basic') {
      const message = Buffer.from(token, 'base64');
      const type = ntlmType(message);
      if (type === 1) {
        const domain = username.includes('\\') ? username.slice(0, username.indexOf('\\')) : 'WORKGROUP';
        const { message: challenge, serverChallenge } = challengeMessage(domain.toUpperCase(), 'SIMULATOR');
        challenges.set(req.socket, serverChallenge);
        req.resume();
        res.writeHead(401, { 'www-authenticate': `${scheme} ${challenge.toString('base64')}`, 'content-length': 0, server: 'Microsoft-HTTPAPI/2.0' });
        res.end();
        return null;
      }
      const serverChallenge = challenges.get(req.socket);
      challenges.delete(req.socket);
      if (type === 3 && serverChallenge) {
        const result = checkAuthenticate(message, serverChallenge, username, password);
        if (result.ok) return { auth: 'ntlm', user: result.user };
        unauthorized(res, `ntlm: wrong credentials for ${JSON.stringify(result.user)}`);
        return null;
      }
      unauthorized(res, type === 3 ? 'ntlm: AUTHENTICATE on a connection that had no CHALLENGE' : 'ntlm: not an NTLM message');
      return null;
    }
    unauthorized(res, header ? `unsupported authorization scheme ${JSON.stringify(scheme)}` : 'no authorization');
    return null;
  }

  async function readBody(req: IncomingMessage): Promise<string | null> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) return null;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || req.url !== '/wsman') {
      req.resume();
      res.writeHead(404, { 'content-length': 0 });
      return void res.end();
    }
    const who = authenticate(req, res);
    if (!who) return void req.resume();
    const xml = await readBody(req);
    const fault = (status: number, subcode: string, code: number, reason: string, action = 'http://schemas.dmtf.org/wbem/wsman/1/wsman/fault') => {
      events.push({ action: 'fault', auth: who.auth, user: who.user, shellId: null, detail: reason });
      send(res, status, envelope(action, messageId, faultBody(subcode, code, reason)));
    };
    let messageId: string | null = null;
    if (xml === null) return fault(500, 'EncodingLimit', 2150858754, 'the request is larger than the simulator accepts');
    if (!/^application\/soap\+xml\s*;\s*charset=utf-8$/i.test(req.headers['content-type'] ?? '')) return fault(415, 'InvalidMessage', 2150858817, `Content-Type must be application/soap+xml;charset=UTF-8 (got ${req.headers['content-type'] ?? 'none'})`);
    // The request read once, by the same streaming parser as the client's answers (no regex rescans it).
    let doc: XmlDocument;
    try {
      doc = readXml(xml, REQUEST_NAMES);
    } catch (error) {
      if (error instanceof XmlMalformedError) return fault(500, 'InvalidMessage', 2150858817, `not well-formed XML: ${error.message}`);
      throw error;
    }
    if (doc.root !== 'Envelope' || !Object.values(doc.first('Envelope')?.attributes ?? {}).includes(SOAP_ENVELOPE_NS)) return fault(500, 'InvalidMessage', 2150858817, 'not a SOAP 1.2 envelope');
    const text = (name: string) => doc.first(name)?.text.trim() ?? null;
    messageId = text('MessageID');
    const action = text('Action');
    const missing = ['To', 'ResourceURI', 'ReplyTo', 'MessageID', 'Action', 'OperationTimeout', 'MaxEnvelopeSize'].filter((name) => text(name) === null);
    if (missing.length) return fault(500, 'InvalidMessage', 2150858817, `the header has no ${missing.join(', ')}`);
    if (text('ResourceURI') !== SHELL_URI) return fault(500, 'DestinationUnreachable', 2150858770, `unknown ResourceURI ${text('ResourceURI')}`);
    if (!/^uuid:[0-9a-f-]{36}$/i.test(messageId!) && !/^urn:uuid:[0-9a-f-]{36}$/i.test(messageId!)) return fault(500, 'InvalidMessage', 2150858817, `MessageID ${messageId} is not a uuid`);
    const timeout = /^PT(\d+(?:\.\d+)?)S$/.exec(text('OperationTimeout')!);
    if (!timeout) return fault(500, 'InvalidMessage', 2150858817, 'OperationTimeout must be a duration such as PT60S');
    const selector = doc.all('Selector').find((s) => s.attributes.Name === 'ShellId')?.text.trim() ?? null;
    const options = Object.fromEntries(doc.all('Option').map((o) => [o.attributes.Name, o.text.trim()]));
    const log = (name: string, detail: string | null = null) => events.push({ action: name, auth: who.auth, user: who.user, shellId: selector, detail });
    const shell = selector ? shells.get(selector) : undefined;
    if (action !== ACTIONS.create && !shell) return fault(500, 'InvalidSelectors', 2150858843, `the shell ${selector ?? '(no ShellId selector)'} does not exist`);

    switch (action) {
      case ACTIONS.create: {
        if (text('InputStreams') === null || text('OutputStreams') === null) return fault(500, 'InvalidMessage', 2150858817, 'a Shell needs InputStreams and OutputStreams');
        const shellId = randomUUID().toUpperCase();
        shells.set(shellId, new Map());
        events.push({ action: 'create', auth: who.auth, user: who.user, shellId, detail: null });
        return send(
          res,
          200,
          envelope(
            `${ACTIONS.create}Response`,
            messageId,
            `<x:ResourceCreated><a:Address>http://${req.headers.host ?? 'localhost'}/wsman</a:Address><a:ReferenceParameters><w:ResourceURI>${SHELL_URI}</w:ResourceURI>` +
              `<w:SelectorSet><w:Selector Name="ShellId">${shellId}</w:Selector></w:SelectorSet></a:ReferenceParameters></x:ResourceCreated>` +
              `<rsp:Shell><rsp:ShellId>${shellId}</rsp:ShellId><rsp:ResourceUri>${SHELL_URI}</rsp:ResourceUri><rsp:Owner>${xmlEscape(who.user)}</rsp:Owner>` +
              `<rsp:ClientIP>${req.socket.remoteAddress ?? ''}</rsp:ClientIP><rsp:InputStreams>stdin</rsp:InputStreams><rsp:OutputStreams>stdout stderr</rsp:OutputStreams></rsp:Shell>`,
          ),
        );
      }
      case ACTIONS.command: {
        const commandLine = text('Command');
        if (commandLine === null || commandLine === '') return fault(500, 'InvalidMessage', 2150858817, 'a CommandLine needs a Command');
        if (options.WINRS_SKIP_CMD_SHELL === undefined) return fault(500, 'InvalidOptions', 2150858817, 'the Command has no WINRS_SKIP_CMD_SHELL option');
        log('command', commandLine);
        const spec = findCommand(fixture, commandLine);
        if (spec?.status) {
          const body = spec.body ?? envelope(`${ACTIONS.command}Fault`, messageId, faultBody('InternalError', 2150858770, `simulated failure of ${innerCommand(commandLine)}`));
          return send(res, spec.status, body);
        }
        const commandId = randomUUID().toUpperCase();
        shell!.set(commandId, { spec, commandLine, readyAt: Date.now() + (spec?.delayMs ?? 0), sent: 0, offset: 0, terminated: false });
        return send(res, 200, envelope(`${ACTIONS.command}Response`, messageId, `<rsp:CommandResponse><rsp:CommandId>${commandId}</rsp:CommandId></rsp:CommandResponse>`));
      }
      case ACTIONS.receive: {
        const desired = doc.first('DesiredStream');
        const commandId = desired?.attributes.CommandId;
        const running = commandId ? shell!.get(commandId) : undefined;
        if (!desired || !running) return fault(500, 'InvalidSelectors', 2150858843, `no command ${commandId ?? '(no DesiredStream CommandId)'} in this shell`);
        log('receive', commandId!);
        const waitMs = running.readyAt - Date.now();
        const limitMs = Number(timeout[1]) * 1000;
        if (waitMs > limitMs) {
          // As Windows: nothing within OperationTimeout is a TimedOut fault; the client asks again.
          await sleep(limitMs);
          return fault(500, 'TimedOut', 2150858793, 'The WS-Management service cannot complete the operation within the time specified in OperationTimeout.', `${ACTIONS.receive}Fault`);
        }
        if (waitMs > 0) await sleep(waitMs);
        return send(res, 200, envelope(`${ACTIONS.receive}Response`, messageId, receiveBody(commandId!, running)));
      }
      case ACTIONS.signal: {
        const signal = doc.first('Signal');
        const running = signal ? shell!.get(signal.attributes.CommandId ?? '') : undefined;
        if (!running || text('Code') === null) return fault(500, 'InvalidSelectors', 2150858843, 'a Signal needs a known CommandId and a Code');
        if (text('Code') === TERMINATE) running.terminated = true;
        log('signal', text('Code'));
        return send(res, 200, envelope(`${ACTIONS.signal}Response`, messageId, '<rsp:SignalResponse/>'));
      }
      case ACTIONS.delete: {
        shells.delete(selector!);
        log('delete');
        return send(res, 200, envelope(`${ACTIONS.delete}Response`, messageId, ''));
      }
      default:
        return fault(500, 'ActionNotSupported', 2150858770, `the action ${action ?? '(none)'} is not supported`);
    }
  }

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  }

  /** The output in two Receives when there is any (so the client must loop), then Done. */
  function receiveBody(commandId: string, running: Running): string {
    const spec = running.spec;
    const stdout = spec ? spec.stdout : '';
    const stderr = spec
      ? spec.stderr
      : `${innerCommand(running.commandLine).split(/\s/)[0]} : The term is not recognized as the name of a cmdlet (the simulator has no such command)\r\n`;
    const exitCode = spec ? spec.exitCode : 1;
    const stream = (name: string, data: Buffer, end: boolean) =>
      `<rsp:Stream Name="${name}" CommandId="${commandId}"${end ? ' End="true"' : ''}>${data.length ? data.toString('base64') : ''}</rsp:Stream>`;
    const out = Buffer.from(stdout, 'utf8');
    // The first half first when there is any (split within a character when there is one to
    // split: decoding must join first), and never more than fits the client's MaxEnvelopeSize.
    const piece = Math.min(OUTPUT_PIECE_BYTES, running.sent === 0 && out.length > 1 ? Math.floor(out.length / 2) : out.length - running.offset);
    running.sent++;
    if (running.offset + piece < out.length) {
      const data = out.subarray(running.offset, running.offset + piece);
      running.offset += piece;
      return `<rsp:ReceiveResponse>${stream('stdout', data, false)}<rsp:CommandState CommandId="${commandId}" State="${RUNNING}"/></rsp:ReceiveResponse>`;
    }
    const rest = out.subarray(running.offset);
    running.offset = out.length;
    return (
      `<rsp:ReceiveResponse>${stream('stdout', rest, false)}${stream('stdout', Buffer.alloc(0), true)}` +
      `${stderr ? stream('stderr', Buffer.from(stderr, 'utf8'), false) : ''}${stream('stderr', Buffer.alloc(0), true)}` +
      `<rsp:CommandState CommandId="${commandId}" State="${DONE}"><rsp:ExitCode>${exitCode}</rsp:ExitCode></rsp:CommandState></rsp:ReceiveResponse>`
    );
  }

  for (const listener of [server, ...(tlsServer ? [tlsServer] : [])]) {
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(listener === server ? port : httpsPort, host, () => resolve());
    });
  }
  return {
    port: (server.address() as { port: number }).port,
    httpsPort: tlsServer ? (tlsServer.address() as { port: number }).port : null,
    events,
    get openShells() {
      return shells.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        let open = tlsServer ? 2 : 1;
        for (const listener of [server, ...(tlsServer ? [tlsServer] : [])]) {
          listener.close(() => --open === 0 && resolve());
          listener.closeAllConnections();
        }
      }),
  };
}

