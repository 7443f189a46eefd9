//! `bench/callgrind/run.py`'s measured program: `small_calls N` logs in, then makes N small
//! calls (`agents`) one after the other on a current-thread runtime, with telemetry off.
//! Valgrind counts its instructions for two values of N; the difference is N calls' cost.
//!
//! It uses only what the client had before telemetry, so that the benchmark builds it at an
//! older commit too and compares the instructions of the same calls. Its account comes from
//! the `MONAPI_*` variables.

fn main() -> Result<(), monapi::Error> {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let client = monapi::Client::from_env()?;
        client.login().await?;
        for _ in 0..calls {
            client.agents().await?;
        }
        Ok(())
    })
}
