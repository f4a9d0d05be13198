// How long the host takes to read hostile WinRM answers (host/bridges/winrm/xml-reader.ts):
// the shapes that made the old regular-expression reading quadratic, and a few more, each
// read whole and fed a byte at a time. Linear reading keeps each in milliseconds.
//
// Run: node --import tsx bench/winrm-answers.ts [--repeat N]
// Before the streaming parser (regexes; issue 34), on a shared 2-core dev machine: 300 KB of
// "<Fault" with no ">" 2.1 s, one 60 KB attribute name 1.7 s (the host loop's stalls in
// test/hostile-peers/winrm.test.ts: 3.2 s and 2.7 s; the review saw 10-27 s and 8-29 s).
import { answerReader, readAnswer } from '../host/bridges/winrm/soap.js';
import { XmlMalformedError } from '../host/bridges/winrm/xml-reader.js';

const ENVELOPE = '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body>';
const bodies: Record<string, string> = {
  '300 KB of "<Fault" with no ">"': `${ENVELOPE}${'<Fault'.repeat(50_000)}`,
  'one 60 KB attribute name': `${ENVELOPE}<rsp:ReceiveResponse><rsp:Stream Name="stdout" ${'a'.repeat(60_000)}>QQ==</rsp:Stream></rsp:ReceiveResponse></s:Body></s:Envelope>`,
  'one 60 KB attribute value': `${ENVELOPE}<rsp:Stream Name="${'a'.repeat(60_000)}">QQ==</rsp:Stream></s:Body></s:Envelope>`,
  '25,000 nested elements (150 KB)': `${ENVELOPE}${'<a>'.repeat(25_000)}${'</a>'.repeat(25_000)}</s:Body></s:Envelope>`,
  '150 KB of base64 output': `${ENVELOPE}<rsp:Stream Name="stdout">${'QUJD'.repeat(37_500)}</rsp:Stream></s:Body></s:Envelope>`,
};

const repeat = Number(process.argv[process.argv.indexOf('--repeat') + 1]) || 5;
const time = (read: () => void) => {
  let best = Infinity;
  for (let i = 0; i < repeat; i++) {
    const started = performance.now();
    try {
      read();
    } catch (error) {
      if (!(error instanceof XmlMalformedError)) throw error;
    }
    best = Math.min(best, performance.now() - started);
  }
  return best.toFixed(1);
};

for (const [label, body] of Object.entries(bodies)) {
  const whole = time(() => readAnswer(body));
  const dripped = time(() => {
    const reader = answerReader();
    for (let i = 0; i < body.length; i++) reader.write(body[i]!);
    reader.end();
  });
  console.log(`${label.padEnd(36)} ${String(body.length).padStart(7)} chars  whole ${whole.padStart(6)} ms  a char at a time ${dripped.padStart(6)} ms`);
}
