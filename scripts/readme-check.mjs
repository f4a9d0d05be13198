#!/usr/bin/env node
// Follows README.md top to bottom as a new user would, in a fresh clone, and fails on the first
// command that does not work as written. Every command it runs is taken from README.md verbatim:
// a line that is no longer in the README fails the check, so the two cannot drift apart.
//
// The device the README's examples name (10.0.0.7, admin / secret) is real here: a network
// namespace with 10.0.0.7 on its loopback, where the simulator of `driverbox init`'s driver
// listens on port 80. Only `npm ci` and `npm install` run outside it (they need the registry).
// It also installs driverbox from `npm pack` into an empty project and follows the same flow there.
//
// Usage: node scripts/readme-check.mjs [--keep] [--reuse <dir>]   (root: it makes a network namespace;
// CI runs it). --keep leaves its folder; --reuse <dir> takes such a folder's installed clone and
// project again instead of cloning and installing (to iterate on this script).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const keep = process.argv.includes('--keep');
const reuse = process.argv.includes('--reuse') ? path.resolve(process.argv[process.argv.indexOf('--reuse') + 1]) : null;
const work = reuse ?? mkdtempSync(path.join(tmpdir(), 'driverbox-readme-'));
const netns = `drvbx-readme-${process.pid}`;
// A new user's home: the data folder (store, API key, secret key) starts empty. npm keeps the
// machine's cache and settings (such as the Node headers node-gyp builds against).
const npmConfig = (key) => spawnSync('npm', ['config', 'get', key], { encoding: 'utf8' }).stdout.trim();
const env = {
  ...process.env,
  HOME: path.join(work, 'home'),
  npm_config_cache: npmConfig('cache') || path.join(homedir(), '.npm'),
  npm_config_userconfig: npmConfig('userconfig') || path.join(homedir(), '.npmrc'),
  NO_COLOR: '1',
  FORCE_COLOR: '0',
};
for (const name of Object.keys(env)) if (name.startsWith('DRIVERBOX_') || name.startsWith('DEVICE_')) delete env[name];
mkdirSync(env.HOME, { recursive: true });
const background = new Set();
let step = 0;

/** The README line that holds `command`, with its trailing `# comment` removed; fails if absent. */
function fromReadme(command) {
  const line = readme.split('\n').find((l) => l.replace(/\s+#.*$/, '').trim() === command);
  if (!line) fail(`README.md no longer has the line \`${command}\`: update scripts/readme-check.mjs with the README`);
  return command;
}

function fail(message) {
  console.error(`\nreadme-check: FAILED: ${message}`);
  cleanUp();
  process.exit(1);
}

function inNamespace(args) {
  return ['ip', ['netns', 'exec', netns, ...args]];
}

/** Runs a shell command line as pasted; returns its output. `expect` is the exit code wanted. */
function run(command, { cwd, expect = 0, outside = false, extraEnv = {} } = {}) {
  step += 1;
  console.log(`\n[${step}] ${path.relative(work, cwd) || '.'}$ ${command}`);
  const [file, args] = outside ? ['bash', ['-c', command]] : inNamespace(['bash', '-c', command]);
  const result = spawnSync(file, args, { cwd, env: { ...env, ...extraEnv }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = `${result.stdout}${result.stderr}`;
  console.log(output.split('\n').slice(-12).map((l) => `    ${l}`).join('\n'));
  if (result.status !== expect) fail(`\`${command}\` exited ${result.status ?? result.signal}, expected ${expect}\n${output}`);
  return result.stdout;
}

/** Starts a long-running command; resolves with its output once `ready` matches it. */
function start(command, { cwd, ready, timeoutMs = 60_000 }) {
  step += 1;
  console.log(`\n[${step}] ${path.relative(work, cwd) || '.'}$ ${command} &`);
  const [file, args] = inNamespace(['bash', '-c', `exec ${command}`]);
  // Its own process group, so that stop() can press Ctrl-C as a terminal does: to every process of it.
  const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  background.add(child);
  let output = '';
  child.output = () => output;
  // 'close', not 'exit': the launcher (npx, bin/driverbox.js) may exit before the process it
  // started has written its last lines into the shared pipes.
  child.closed = new Promise((resolve) => child.once('close', resolve));
  return new Promise((resolve) => {
    const timer = setTimeout(() => fail(`\`${command}\` did not get ready within ${timeoutMs} ms:\n${output}`), timeoutMs);
    child.stdout.on('data', (chunk) => (output += chunk));
    const onData = () => {
      const match = output.match(ready);
      if (match) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        console.log(output.split('\n').map((l) => `    ${l}`).join('\n'));
        resolve({ child, output, match });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => {
      background.delete(child);
      if (!output.match(ready)) fail(`\`${command}\` exited ${code} before it was ready:\n${output}`);
    });
  });
}

/** Ctrl-C: SIGINT to the process group; resolves with what the command printed, once it exited. */
async function stop(child) {
  if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGINT');
  const timer = setTimeout(() => fail(`the command did not stop within 15 s of Ctrl-C:\n${child.output()}`), 15_000);
  await child.closed;
  clearTimeout(timer);
  return child.output();
}

function cleanUp() {
  for (const child of background) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  spawnSync('ip', ['netns', 'del', netns]);
  if (!keep) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}

async function get(url, headers = {}) {
  const [file, args] = inNamespace([process.execPath, '-e', `fetch(${JSON.stringify(url)}, { headers: ${JSON.stringify(headers)} }).then(async (r) => { process.stdout.write(JSON.stringify({ status: r.status, body: await r.text() })); })`]);
  const result = spawnSync(file, args, { encoding: 'utf8' });
  if (result.status !== 0) fail(`GET ${url}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** The no-device flow, in a folder where `driverbox` is installed (the clone, or a project). */
async function noDeviceFlow(cwd) {
  run(fromReadme('npx driverbox init my-nas'), { cwd });
  const sim = await start(fromReadme('npx driverbox simulate my-nas/device.json'), { cwd, ready: /^ {2}(.*driverbox run .*)$/m });
  // The run line the simulator prints, pasted as it is.
  run(sim.match[1].trim(), { cwd });
  const stopped = await stop(sim.child);
  if (!/Stopped \(SIGINT\)/.test(stopped)) fail(`driverbox simulate did not stop cleanly on Ctrl-C:\n${stopped}`);
  run(fromReadme('npx vitest run my-nas'), { cwd });
  // The same tests from inside the driver's folder.
  run('npx vitest run', { cwd: path.join(cwd, 'my-nas') });
}

async function main() {
  // A fresh clone of what is committed.
  const clone = path.join(work, 'driverbox');
  if (reuse) {
    for (const made of ['my-nas', 'my_driver.js', '.env']) rmSync(path.join(clone, made), { recursive: true, force: true });
    rmSync(path.join(work, 'project', 'my-nas'), { recursive: true, force: true });
    rmSync(env.HOME, { recursive: true, force: true });
    mkdirSync(env.HOME, { recursive: true });
  } else {
    run(`git clone -q ${root} driverbox`, { cwd: work, outside: true });
    run(fromReadme('npm ci && npm start'), { cwd: clone, outside: true });
  }

  // The device of the README's examples, and nothing else, in a network namespace.
  for (const args of [['add', netns], ['exec', netns, 'ip', 'link', 'set', 'lo', 'up'], ['exec', netns, 'ip', 'addr', 'add', '10.0.0.7/32', 'dev', 'lo']]) {
    const result = spawnSync('ip', ['netns', ...args], { encoding: 'utf8' });
    if (result.status !== 0) fail(`ip netns ${args.join(' ')}: ${result.stderr} (readme-check needs root)`);
  }

  // "Write and test a driver with no device".
  await noDeviceFlow(clone);

  // "Run a driver": my_driver.js is the user's driver (here the one init made), and the device at
  // 10.0.0.7 answers as its fixture says, with the README's credentials.
  cpSync(path.join(clone, 'my-nas', 'driver.js'), path.join(clone, 'my_driver.js'));
  const fixture = JSON.parse(readFileSync(path.join(clone, 'my-nas', 'device.json'), 'utf8'));
  fixture.device = { ...fixture.device, username: 'admin', password: 'secret' };
  writeFileSync(path.join(work, 'device-10.0.0.7.json'), JSON.stringify(fixture, null, 2));
  const device = await start(`npx driverbox simulate ${path.join(work, 'device-10.0.0.7.json')} --host 10.0.0.7 --port 80`, { cwd: clone, ready: /driverbox run/ });
  run(fromReadme('npx driverbox run my_driver.js --device-ip 10.0.0.7 --username admin --password secret'), { cwd: clone });
  // The README's .env habit, written as users of the official emulator do.
  writeFileSync(path.join(clone, '.env'), 'DEVICE_IP=10.0.0.7\nDEVICE_USERNAME=admin\nDEVICE_PASSWORD=secret\n');
  const validate = JSON.parse(run(fromReadme('npx driverbox run my_driver.js --action validate --json'), { cwd: clone }));
  if (validate.status !== 'success') fail(`validate: ${JSON.stringify(validate)}`);
  const actions = run(fromReadme('npx driverbox actions my_driver.js'), { cwd: clone });
  if (!/custom_1/.test(actions)) fail('actions does not list custom_1');

  // "Results as variables": report, the driver library, the API.
  run(fromReadme('npx driverbox run my_driver.js --device-ip 10.0.0.7 --report'), { cwd: clone });
  run(fromReadme('npx driverbox drivers add my_driver.js --param site:STRING=lab'), { cwd: clone });
  const serve = await start(fromReadme('npx driverbox serve'), { cwd: clone, ready: /7420/ });
  const apiKey = readFileSync(path.join(env.HOME, '.local/share/driverbox/api-key'), 'utf8').trim();
  const api = async (route) => {
    const answer = await get(`http://127.0.0.1:7420/public-api/v1${route}`, { 'X-Api-Key': apiKey });
    if (answer.status !== 200) fail(`GET ${route}: ${answer.status} ${answer.body}`);
    return JSON.parse(answer.body);
  };
  const reported = [];
  for (const agent of await api('/agent')) {
    for (const d of await api(`/agent/${agent.id}/device`)) if ((d.ip_addresses ?? []).includes('10.0.0.7')) reported.push({ agent: agent.id, device: d.id });
  }
  if (reported.length !== 1) fail(`the reported device is not in the API once: ${JSON.stringify(reported)}`);
  const variables = await api(`/agent/${reported[0].agent}/device/${reported[0].device}/variable`);
  if (!JSON.stringify(variables).includes('Example-100')) fail(`the reported variables are not in the API: ${JSON.stringify(variables)}`);
  const library = await api('/custom-driver');
  if (!JSON.stringify(library).includes('my_driver')) fail(`drivers add: the driver is not in the API's library: ${JSON.stringify(library)}`);
  await stop(serve.child);
  await stop(device.child);

  // A project that installs driverbox as a dependency (the packed package, as the registry serves it).
  const project = path.join(work, 'project');
  if (!reuse || !existsSync(project)) {
    const packed = run('npm pack --silent', { cwd: clone, outside: true }).trim().split('\n').pop();
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'my-drivers', private: true, type: 'module' }, null, 2));
    const vitest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies.vitest;
    run(`npm install --no-audit --no-fund ${path.join(clone, packed)} vitest@${vitest}`, { cwd: project, outside: true });
  }
  await noDeviceFlow(project);

  console.log(`\nreadme-check: ${step} steps, every one as README.md says.`);
}

process.on('SIGINT', () => fail('interrupted'));
main().then(cleanUp, (error) => fail(error.stack));
