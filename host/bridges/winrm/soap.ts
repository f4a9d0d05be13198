// The WS-Management SOAP messages of a WinRM remote shell (MS-WSMV 3.1.4.x), built as text,
// and the few fields read from the answers. The answers' namespace prefixes vary between
// servers, so elements are found by local name.
import { randomUUID } from 'node:crypto';
import { readXml, XmlReader, type XmlDocument, type XmlNames } from './xml-reader.js';

const NS = {
  s: 'http://www.w3.org/2003/05/soap-envelope',
  wsa: 'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  wsman: 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd',
  rsp: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell',
};
export const SHELL_URI = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd';
export const ACTIONS = {
  create: 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Create',
  command: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Command',
  receive: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Receive',
  signal: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/Signal',
  delete: 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Delete',
} as const;
export const TERMINATE = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/signal/terminate';
/** The largest answer the client accepts, as it tells the server (the platform's value). */
export const MAX_ENVELOPE_SIZE = 153_600;

export const xmlEscape = (text: string) => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
interface Request {
  action: string;
  to: string;
  /** Seconds the server may wait before answering (a Receive with no output yet). */
  timeoutS: number;
  shellId?: string;
  options?: Record<string, string>;
  body?: string;
}

function envelope(request: Request): string {
  const must = ' s:mustUnderstand="true"';
  const selector = request.shellId ? `<wsman:SelectorSet><wsman:Selector Name="ShellId">${xmlEscape(request.shellId)}</wsman:Selector></wsman:SelectorSet>` : '';
  const options = request.options
    ? `<wsman:OptionSet>${Object.entries(request.options).map(([k, v]) => `<wsman:Option Name="${k}">${xmlEscape(v)}</wsman:Option>`).join('')}</wsman:OptionSet>`
    : '';
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<s:Envelope xmlns:s="${NS.s}" xmlns:wsa="${NS.wsa}" xmlns:wsman="${NS.wsman}" xmlns:rsp="${NS.rsp}">` +
    `<s:Header>` +
    `<wsa:To>${xmlEscape(request.to)}</wsa:To>` +
    `<wsman:ResourceURI${must}>${SHELL_URI}</wsman:ResourceURI>` +
    `<wsa:ReplyTo><wsa:Address${must}>http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous</wsa:Address></wsa:ReplyTo>` +
    `<wsman:MaxEnvelopeSize${must}>${MAX_ENVELOPE_SIZE}</wsman:MaxEnvelopeSize>` +
    `<wsa:MessageID>uuid:${randomUUID().toUpperCase()}</wsa:MessageID>` +
    `<wsman:Locale xml:lang="en-US" s:mustUnderstand="false"/>` +
    `<wsman:OperationTimeout>PT${request.timeoutS}S</wsman:OperationTimeout>` +
    `<wsa:Action${must}>${request.action}</wsa:Action>` +
    selector +
    options +
    `</s:Header>` +
    `<s:Body>${request.body ?? ''}</s:Body>` +
    `</s:Envelope>`
  );
}

export const createShell = (to: string, timeoutS: number) =>
  envelope({
    action: ACTIONS.create,
    to,
    timeoutS,
    // UTF-8 output (65001): the platform asks for 437 and decodes UTF-8, which garbles anything past ASCII.
    options: { WINRS_NOPROFILE: 'FALSE', WINRS_CODEPAGE: '65001' },
    body: '<rsp:Shell><rsp:InputStreams>stdin</rsp:InputStreams><rsp:OutputStreams>stdout stderr</rsp:OutputStreams></rsp:Shell>',
  });

export const runCommand = (to: string, timeoutS: number, shellId: string, commandLine: string) =>
  envelope({
    action: ACTIONS.command,
    to,
    timeoutS,
    shellId,
    options: { WINRS_CONSOLEMODE_STDIN: 'TRUE', WINRS_SKIP_CMD_SHELL: 'TRUE' },
    body: `<rsp:CommandLine><rsp:Command>${xmlEscape(commandLine)}</rsp:Command></rsp:CommandLine>`,
  });

export const receiveOutput = (to: string, timeoutS: number, shellId: string, commandId: string) =>
  envelope({ action: ACTIONS.receive, to, timeoutS, shellId, body: `<rsp:Receive><rsp:DesiredStream CommandId="${xmlEscape(commandId)}">stdout stderr</rsp:DesiredStream></rsp:Receive>` });

export const terminateCommand = (to: string, timeoutS: number, shellId: string, commandId: string) =>
  envelope({ action: ACTIONS.signal, to, timeoutS, shellId, body: `<rsp:Signal CommandId="${xmlEscape(commandId)}"><rsp:Code>${TERMINATE}</rsp:Code></rsp:Signal>` });

export const deleteShell = (to: string, timeoutS: number, shellId: string) => envelope({ action: ACTIONS.delete, to, timeoutS, shellId });

// --- reading answers ---

/** What is read from a WinRM answer: nothing else is kept (xml-reader.ts). */
const ANSWER_NAMES: XmlNames = {
  withText: ['ShellId', 'CommandId', 'Selector', 'Stream', 'ExitCode', 'Text', 'Message', 'Value'],
  withoutText: ['Fault', 'WSManFault'],
};

/** A streaming reader for one answer, fed as its bytes arrive. */
export const answerReader = () => new XmlReader(ANSWER_NAMES);

/** A whole answer read at once (bench/winrm-answers.ts). */
export const readAnswer = (xml: string) => readXml(xml, ANSWER_NAMES);

/** The longest fault reason kept, characters (a device's text, put in the driver's error). */
const MAX_REASON_CHARS = 2000;
/** WS-Management's "no output within OperationTimeout" (MS-WSMV 3.1.4.14): the client asks again. */
const OPERATION_TIMEOUT_CODE = '2150858793';

export interface SoapFault {
  reason: string;
  /** The WSManFault's Code, when it has one. */
  code: string | null;
  /** Whether it is the OperationTimeout fault of a Receive with nothing yet. */
  timedOut: boolean;
}

/** A SOAP fault's reason and WS-Management code, when the answer is one. */
export function faultOf(doc: XmlDocument): SoapFault | null {
  if (!doc.first('Fault')) return null;
  const text = (doc.first('Text') ?? doc.first('Message'))?.text ?? 'SOAP fault';
  let reason = text.replace(/\s+/g, ' ').trim();
  if (reason.length > MAX_REASON_CHARS) reason = `${reason.slice(0, MAX_REASON_CHARS)}… (${reason.length} characters)`;
  const code = doc.first('WSManFault')?.attributes.Code ?? null;
  // The subcode is a QName such as w:TimedOut.
  const timedOut = code === OPERATION_TIMEOUT_CODE || doc.all('Value').some((v) => /(?:^|:)TimedOut$/.test(v.text.trim()));
  return { reason, code: code === null ? null : code.slice(0, 64), timedOut };
}

/** The longest shell or command id taken from an answer (Windows' are GUIDs), characters. */
const MAX_ID_CHARS = 256;

/** An id the server gave: trimmed, or null when absent, empty or longer than an id can be. */
function id(text: string | undefined): string | null {
  const value = text?.trim() ?? '';
  return value !== '' && value.length <= MAX_ID_CHARS ? value : null;
}

/** The new shell's id: its ShellId, or (some servers) the SelectorSet's ShellId. */
export function shellIdOf(doc: XmlDocument): string | null {
  return id(doc.first('ShellId')?.text) ?? id(doc.all('Selector').find((s) => s.attributes.Name === 'ShellId')?.text);
}

export const commandIdOf = (doc: XmlDocument): string | null => id(doc.first('CommandId')?.text);

export interface ReceivedChunk {
  stdout: Buffer[];
  stderr: Buffer[];
  /** The exit code once the command is done, else null. */
  exitCode: number | null;
  /** Whether a stream said End="true" (so stderr may be reported as null). */
  ended: Set<string>;
}

/** An exit code as Windows writes it: a 32-bit value, signed or not. */
const EXIT_CODE = /^-?\d{1,10}$/;

/** The streams and the state of a ReceiveResponse; null exitCode while the command runs. */
export function receiveOf(doc: XmlDocument): ReceivedChunk | { malformed: string } {
  const chunk: ReceivedChunk = { stdout: [], stderr: [], exitCode: null, ended: new Set() };
  for (const stream of doc.all('Stream')) {
    const name = stream.attributes.Name;
    if (name !== 'stdout' && name !== 'stderr') continue;
    // Buffer's base64 decoding is linear and skips what is not base64 (whitespace, line breaks).
    if (stream.text !== '') chunk[name].push(Buffer.from(stream.text, 'base64'));
    if (stream.attributes.End === 'true') chunk.ended.add(name);
  }
  const exit = doc.first('ExitCode');
  if (exit) {
    const text = exit.text.trim();
    const value = EXIT_CODE.test(text) ? Number(text) : NaN;
    if (!(value >= -(2 ** 31) && value < 2 ** 32)) return { malformed: `the ExitCode ${JSON.stringify(text.slice(0, 40))} is not a 32-bit exit code` };
    chunk.exitCode = value;
  }
  return chunk;
}
