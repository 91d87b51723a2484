// Preloaded (`node --import`) into every service `npm start` runs: when the supervising
// start process goes away, by Ctrl-C or by SIGKILL, the IPC channel to it closes and the
// service stops itself through its own SIGTERM handler, so no orphan keeps a port or the
// broker lock. With no IPC channel (systemd, a shell) it does nothing.
if (process.channel) {
  // The channel alone must not keep a service alive, nor delay its normal exit.
  process.channel.unref();
  process.once('disconnect', () => {
    process.kill(process.pid, 'SIGTERM');
    // A service whose shutdown hangs must still go.
    setTimeout(() => process.exit(1), 15_000).unref();
  });
}
