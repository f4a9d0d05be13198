// The WS-Management SOAP messages of a WinRM remote shell (MS-WSMV 3.1.4.x), built as text,
// and the few fields read from the answers. The answers' namespace prefixes vary between
// servers, so elements are found by local name.
import { randomUUID } from 'node:crypto';

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
const MAX_ENVELOPE_SIZE = 153_600;

export const xmlEscape = (text: string) => text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
export const xmlUnescape = (text: string) =>
  text.replace(/&(lt|gt|amp|quot|apos|#x[0-9a-fA-F]+|#[0-9]+);/g, (_, e: string) =>
    e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'amp' ? '&' : e === 'quot' ? '"' : e === 'apos' ? "'" : String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)),
  );

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

// --- reading answers (and, for the simulator, requests) ---

const element = (name: string) => new RegExp(`<(?:[\\w.-]+:)?${name}\\b([^>]*?)(?:/>|>([\\s\\S]*?)</(?:[\\w.-]+:)?${name}\\s*>)`, 'g');

/** The text of the first element named `name` (any prefix), unescaped; null when absent. */
export function elementText(xml: string, name: string): string | null {
  const match = element(name).exec(xml);
  return match ? xmlUnescape(match[2] ?? '').trim() : null;
}

/** Every element named `name`: its attributes and its text. */
export function elements(xml: string, name: string): Array<{ attributes: Record<string, string>; text: string }> {
  return [...xml.matchAll(element(name))].map((m) => ({ attributes: attributes(m[1] ?? ''), text: xmlUnescape(m[2] ?? '') }));
}

export function attributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) out[m[1]!.replace(/^[\w.-]+:/, '')] = xmlUnescape(m[2] ?? m[3] ?? '');
  return out;
}

export interface ReceivedChunk {
  stdout: Buffer[];
  stderr: Buffer[];
  /** The exit code once the command is done, else null. */
  exitCode: number | null;
  /** Whether a stream said End="true" (so stderr may be reported as null). */
  ended: Set<string>;
}

/** The streams and the state of a ReceiveResponse. */
export function parseReceive(xml: string): ReceivedChunk {
  const chunk: ReceivedChunk = { stdout: [], stderr: [], exitCode: null, ended: new Set() };
  for (const stream of elements(xml, 'Stream')) {
    const name = stream.attributes.Name;
    if (name !== 'stdout' && name !== 'stderr') continue;
    const data = stream.text.trim();
    if (data) chunk[name].push(Buffer.from(data, 'base64'));
    if (stream.attributes.End === 'true') chunk.ended.add(name);
  }
  const exit = elementText(xml, 'ExitCode');
  if (exit !== null && /^-?\d+$/.test(exit)) chunk.exitCode = Number(exit);
  return chunk;
}

/** A SOAP fault's reason and WS-Management code, when the answer is one. */
export function parseFault(xml: string): { reason: string; code: string | null } | null {
  if (!element('Fault').test(xml)) return null;
  const reason = elementText(xml, 'Text') ?? elementText(xml, 'Message') ?? 'SOAP fault';
  const wsman = elements(xml, 'WSManFault')[0]?.attributes.Code ?? null;
  return { reason: reason.replace(/\s+/g, ' ').trim(), code: wsman };
}

/** WS-Management's "no output within OperationTimeout" fault: the client simply asks again. */
export const isOperationTimeout = (fault: { code: string | null; reason: string } | null) =>
  fault !== null && (fault.code === '2150858793' || /TimedOut/.test(fault.reason));
