// A generic simulated device for scripts/corpus-check.mjs: one listener on 127.0.0.1 that speaks
// HTTP and HTTPS on the same port (the first byte tells a TLS hello from a request line), so every
// device port a driver dials can be mapped to it, and answers every request 200 with plausible
// data built from the words the driver itself reads (its property names): a JSON object whose
// every such key holds two records that have every key again, with a number or a text as the key
// suggests. Paths that only run when a device has rows (tables, addMetrics) then run. An XML
// request (SOAP, .xml, Accept: xml) gets the same words as XML. Bounded: request bodies past
// 1 MiB are not read, the vocabulary is cut to MAX_WORDS.
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { TLSSocket } from 'node:tls';

const MAX_WORDS = 100;
const MAX_REQUEST_BYTES = 1 << 20;
/** Keys whose value reads as text; every other key holds a number (or a record, at the top). */
const TEXTUAL = /name|id$|^id|uuid|status|state|version|model|serial|mac|ip|addr|host|label|title|desc|type|message|msg|text|date|time|url|uri|href|link|path|mode|role|vendor|user|email|token|key|code|health|alias|location|firmware|os$|sku|unit|secret|session|cookie/i;
/** Keys that name a list: they hold records. */
const PLURAL = /(?<![su])s$|list$|items?$|data$|results?$|rows$|entries$|records$|children$|members$|nodes$|value$|array$|collection$/i;

function valueFor(key, index) {
  if (/^(is|has|enabled|disabled|active|online|connected|up|ok|success)/i.test(key)) return true;
  if (/url|uri|href|link|path|@odata\.id/i.test(key)) return `/generic/${key.replace(/[^\w-]/g, '')}/${index + 1}`;
  if (TEXTUAL.test(key)) return /time|date/i.test(key) ? '2026-01-15T12:00:00Z' : `${key}-${index + 1}`;
  return 10 * (index + 1);
}

/**
 * The JSON document for a vocabulary. At the top, a key that names a list holds two records, a
 * textual one a text, any other one record; in a record, a list key holds one leaf record, any
 * other key a value; a leaf record holds values only. Shared objects keep JSON.stringify's work
 * linear in the output it writes.
 */
export function plausibleJson(words) {
  const values = (index) => Object.fromEntries(words.map((w) => [w, valueFor(w, index)]));
  const leaf = values(0);
  const record = (index) => Object.fromEntries(words.map((w) => [w, PLURAL.test(w) ? [leaf] : valueFor(w, index)]));
  const rows = [record(0), record(1)];
  return Object.fromEntries(words.map((w) => [w, PLURAL.test(w) ? rows : TEXTUAL.test(w) ? valueFor(w, 0) : rows[0]]));
}

/** Two records of the vocabulary: what a list answer (PowerShell's ConvertTo-Json of rows) holds. */
export function plausibleRows(words) {
  const doc = plausibleJson([...words, 'items']);
  return doc.items;
}

function plausibleXml(words) {
  const tag = (w) => (/^[A-Za-z_][\w.-]*$/.test(w) ? w : null);
  const inner = words.map(tag).filter(Boolean).map((w) => `<${w}>${valueFor(w, 0)}</${w}>`).join('');
  const rows = [0, 1].map(() => `<item>${inner}</item>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><response>${words.map(tag).filter(Boolean).map((w) => `<${w}>${rows}</${w}>`).join('')}</response>`;
}

/**
 * Starts the device; `certificate` ({ cert, key }) serves its TLS side. setVocabulary(words)
 * sets the words the next answers are built from (one driver's, runs are one at a time).
 */
export async function startGenericDevice({ certificate }) {
  let json = '{}';
  let xml = '<response/>';
  let requests = 0;
  const answer = (request, response) => {
    requests++;
    let size = 0;
    let text = '';
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) text += chunk.toString('utf8');
    });
    request.on('end', () => {
      const url = request.url ?? '/';
      const wantsXml = /xml|soap/i.test(String(request.headers.accept ?? '')) || /\.xml\b|wsdl|soap/i.test(url) || /^\s*</.test(text) || /xml/i.test(String(request.headers['content-type'] ?? ''));
      const body = wantsXml ? xml : json;
      response.writeHead(200, { 'content-type': wantsXml ? 'text/xml; charset=utf-8' : 'application/json', 'set-cookie': 'session=generic; Path=/' });
      response.end(body);
    });
  };
  const http = createHttpServer(answer);
  const sockets = new Set();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.once('readable', () => {
      const first = socket.read(1);
      if (first === null) return;
      socket.unshift(first);
      if (first[0] === 0x16) {
        const tls = new TLSSocket(socket, { isServer: true, cert: certificate.cert, key: certificate.key });
        tls.on('error', () => socket.destroy());
        http.emit('connection', tls);
      } else http.emit('connection', socket);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    get requests() {
      return requests;
    },
    setVocabulary(words) {
      const kept = [...new Set(words)].slice(0, MAX_WORDS);
      json = JSON.stringify(plausibleJson(kept));
      xml = plausibleXml(kept);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      http.close();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
