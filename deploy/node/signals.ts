/**
 * How a Node process that runs a server stops: SIGINT or SIGTERM runs the ordered stop, and a
 * stop that cannot finish (a stuck disk, a hung handler) still ends the process after the grace
 * plus 10 s. Under npm (`npx quire serve`, `npm run ...`), npm hands a stop signal to the shell it
 * started, which dies without passing it on: the server would be left running with its port, so
 * when the process that started it goes away, that counts as SIGTERM too.
 */

/** Resolves with the exit code once a stop signal (or the loss of npm's shell) has stopped `stop`. */
export function stopOnSignals(
  stop: (reason: string) => Promise<void>,
  opts: { graceMs: number; env?: NodeJS.ProcessEnv },
): Promise<number> {
  return new Promise((resolve) => {
    const onInt = () => onSignal('SIGINT');
    const onTerm = () => onSignal('SIGTERM');
    const onSignal = (reason: string) => {
      // Once the stop runs, a second signal takes Node's default action: an immediate exit.
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      clearInterval(orphanWatch);
      setTimeout(() => {
        process.stderr.write('quire: shutdown took longer than SHUTDOWN_GRACE_MS + 10 s; exiting\n');
        process.exit(1);
      }, opts.graceMs + 10_000).unref();
      stop(reason).then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    const env = opts.env ?? process.env;
    const parent = process.ppid;
    const underNpm = !!(env.npm_lifecycle_event || env.npm_command);
    const orphanWatch = setInterval(() => {
      if (process.ppid !== parent) onSignal('parent exited');
    }, 250);
    orphanWatch.unref();
    if (!underNpm) clearInterval(orphanWatch);
  });
}
