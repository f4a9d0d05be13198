// The web console (console/, built into dist/console by scripts/build-console.mjs), served by
// `driverbox serve` and `driverbox agent` beside the API on the same port. The page and its
// files are public: they hold no data. Everything the console shows it loads from the Public
// API with the key the user gave, so the API's X-Api-Key check (and its 401) is untouched.
//
//   GET /                         index.html (no-cache: it names the current files)
//   GET /console/assets/<file>    the bundled JS and CSS, names with a content hash (immutable)
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { packagePath } from '../../package-path.js';

export interface ConsoleRoutesOptions {
  /** The built console (index.html and assets/); default dist/console of this package. */
  dir?: string | null;
}

/** The URL path of the console page. */
export const CONSOLE_PATH = '/';
export const CONSOLE_ASSETS_PATH = '/console/assets/';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Where the built page carries the nonce of its answer (a meta tag the editor reads). */
export const CSP_NONCE_PLACEHOLDER = '%CSP_NONCE%';

/**
 * The console's own policy: scripts, styles, images and API calls from this origin only; no
 * framing; no inline script. (Styles set from script through the CSSOM, as uPlot does, are allowed.)
 * `nonce`, new for every answer, lets the editor (CodeMirror) add its own style elements, and only those.
 */
export function consoleCsp(nonce: string): string {
  return [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' 'nonce-${nonce}'`,
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  ].join('; ');
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('X-Frame-Options', 'DENY')
    .header('Cross-Origin-Resource-Policy', 'same-origin');
}

interface Asset {
  body: Buffer;
  type: string;
}

/** Reads the built console once; null when it was not built. */
function loadConsole(dir: string | null): { index: string; assets: Map<string, Asset> } | null {
  if (!dir || !existsSync(path.join(dir, 'index.html'))) return null;
  const assets = new Map<string, Asset>();
  const assetDir = path.join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) {
      const type = TYPES[path.extname(name)];
      if (type) assets.set(name, { body: readFileSync(path.join(assetDir, name)), type });
    }
  }
  return { index: readFileSync(path.join(dir, 'index.html'), 'utf8'), assets };
}

/** A Fastify plugin: register it at the root of the API's app (MonitoringApiOptions.extraRoutes). */
export async function consoleRoutes(app: FastifyInstance, options: ConsoleRoutesOptions = {}): Promise<void> {
  const built = loadConsole(options.dir === undefined ? packagePath(path.join('dist', 'console')) : options.dir);

  // HEAD too (the API's app does not add HEAD routes by itself: its HEADs are count operations).
  app.route({ method: ['GET', 'HEAD'], url: CONSOLE_PATH, handler: async (_request, reply) => {
    securityHeaders(reply).header('Cache-Control', 'no-cache');
    if (!built) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The driverbox console is not built (dist/console is missing): run `npm run build`. The API is served under /public-api/v1.\n');
    }
    const nonce = randomBytes(16).toString('base64');
    return reply.header('Content-Security-Policy', consoleCsp(nonce)).type('text/html; charset=utf-8').send(built.index.replaceAll(CSP_NONCE_PLACEHOLDER, nonce));
  } });

  app.route<{ Params: { file: string } }>({ method: ['GET', 'HEAD'], url: `${CONSOLE_ASSETS_PATH}:file`, handler: async (request, reply) => {
    securityHeaders(reply);
    const asset = built?.assets.get(request.params.file);
    if (!asset) return reply.code(404).header('Cache-Control', 'no-store').type('text/plain; charset=utf-8').send('no such console file\n');
    return reply.header('Cache-Control', 'public, max-age=31536000, immutable').type(asset.type).send(asset.body);
  } });
}
