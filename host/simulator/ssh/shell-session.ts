// The interactive shell of a simulated SSH device, as a pty shows it: the banner and the
// prompt, each typed character echoed, "\n" sent as "\r\n", a line answered from the fixture
// (or as an unknown command), then the prompt again; "exit" / "logout" / "quit" hang up.
import type { ServerChannel } from 'ssh2';
import type { FixtureSsh } from './types.js';

const HANG_UP = new Set(['exit', 'logout', 'quit']);
const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

export function serveShell(stream: ServerChannel, shell: FixtureSsh['shell'], onLine: (line: string, known: boolean) => void, timers: Set<NodeJS.Timeout>): void {
  let prompt = shell.prompt;
  let line = '';
  let lastWasCr = false;
  let busy = false; // a delayed answer is pending: what arrives meanwhile waits, as typed-ahead input
  const queued: string[] = [];

  const write = (text: string) => {
    if (!stream.destroyed && stream.writable) stream.write(text);
  };
  const greet = () => write(crlf(shell.banner ? `${shell.banner}\n` : '') + prompt);
  if (shell.delayMs === 0) greet();
  else {
    // A slow login: what is typed before the greeting waits, as typed-ahead input does.
    busy = true;
    const timer = setTimeout(() => {
      timers.delete(timer);
      busy = false;
      greet();
      while (!busy && queued.length) answer(queued.shift()!);
    }, shell.delayMs);
    timers.add(timer);
  }

  const answer = (entered: string) => {
    const command = entered.trim();
    if (command === '') return write(prompt);
    if (HANG_UP.has(command)) {
      onLine(command, true);
      stream.exit(0);
      stream.end();
      return;
    }
    const known = shell.commands[command];
    onLine(command, known !== undefined);
    const output = known ? known.output : shell.unknownCommand.replaceAll('{command}', command.split(/\s+/)[0]!);
    const reply = () => {
      if (known?.prompt) prompt = known.prompt;
      write(crlf(output === '' ? '' : `${output}\n`) + prompt);
    };
    if (!known || known.delayMs === 0) return reply();
    busy = true;
    const timer = setTimeout(() => {
      timers.delete(timer);
      busy = false;
      reply();
      while (!busy && queued.length) answer(queued.shift()!);
    }, known.delayMs);
    timers.add(timer);
  };

  stream.on('data', (chunk: Buffer) => {
    for (const char of chunk.toString('utf8')) {
      if (char === '\n' && lastWasCr) {
        lastWasCr = false;
        continue;
      }
      lastWasCr = char === '\r';
      if (char === '\r' || char === '\n') {
        write('\r\n');
        if (busy) queued.push(line);
        else answer(line);
        line = '';
      } else if (char === '\x7f' || char === '\b') {
        if (line.length > 0) {
          line = line.slice(0, -1);
          write('\b \b');
        }
      } else if (char === '\x03') {
        line = '';
        write('^C\r\n' + prompt);
      } else {
        line += char;
        write(char);
      }
    }
  });
}
