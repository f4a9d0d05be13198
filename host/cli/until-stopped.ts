// Long-running commands (simulate, serve) run until Ctrl-C or SIGTERM: resolves with the signal.
// Call it before printing "Ctrl-C to stop", so that a Ctrl-C right after that line stops cleanly.
//
// A terminal's Ctrl-C reaches this process twice: from its process group, and forwarded by the
// launcher (bin/driverbox.js), which gets it too. The handlers stay after the first signal and
// swallow every later one, so the copy cannot kill the process halfway through its clean stop.
export function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
