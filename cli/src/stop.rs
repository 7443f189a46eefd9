//! What asks a long-running command (`monapi serve`, `monapi exporter`) to stop: SIGINT (Ctrl-C)
//! or SIGTERM (what supervisors, container runtimes and test harnesses send); Ctrl-C alone on
//! Windows, which has no SIGTERM. Either ends the command as Ctrl-C does, its clean-up done
//! (the emulator's CA file removed, the exporter's traces sent), where SIGTERM's default action
//! would end the process at once.

/// The stop signals, listened for from [`StopSignals::listen`] on: one that comes before the
/// first poll of [`StopSignals::wait`] is kept, not fatal (the default action of both).
pub(crate) struct StopSignals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(windows)]
    ctrl_c: tokio::signal::windows::CtrlC,
}

impl StopSignals {
    /// Listens from now on (on a Tokio runtime).
    pub(crate) fn listen() -> std::io::Result<StopSignals> {
        #[cfg(unix)]
        let listen = tokio::signal::unix::signal;
        Ok(StopSignals {
            #[cfg(unix)]
            interrupt: listen(tokio::signal::unix::SignalKind::interrupt())?,
            #[cfg(unix)]
            terminate: listen(tokio::signal::unix::SignalKind::terminate())?,
            #[cfg(windows)]
            ctrl_c: tokio::signal::windows::ctrl_c()?,
        })
    }

    /// Resolves when asked to stop, and logs by what.
    pub(crate) async fn wait(self) {
        #[cfg(unix)]
        let signal = {
            let StopSignals {
                mut interrupt,
                mut terminate,
            } = self;
            tokio::select! {
                _ = interrupt.recv() => "SIGINT",
                _ = terminate.recv() => "SIGTERM",
            }
        };
        #[cfg(windows)]
        let signal = {
            let mut ctrl_c = self.ctrl_c;
            ctrl_c.recv().await;
            "Ctrl-C"
        };
        tracing::info!("{signal}: shutting down");
    }
}
