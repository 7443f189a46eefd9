//! `bench/callgrind/run.py`'s measured program with telemetry on: `small_calls_traced MODE N`
//! makes N small calls (`agents`) as `small_calls` does, each recorded as the Python and Node
//! packages record them (`recording`: a [`Recording`] per call, its records taken), or seen
//! by `tracing-opentelemetry` with the SDK's in-memory exporter (`tracing`). Each call is two
//! spans: the operation and its HTTP attempt.

use monapi::telemetry::Recording;
use opentelemetry::trace::TracerProvider as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

fn main() -> Result<(), monapi::Error> {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let calls: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100);
    let exporter = opentelemetry_sdk::trace::InMemorySpanExporter::default();
    let _provider = match mode.as_str() {
        "recording" => None,
        "tracing" => {
            let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
                .with_simple_exporter(exporter.clone())
                .build();
            let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("bench"));
            tracing_subscriber::registry().with(layer).init();
            Some(provider)
        }
        other => panic!("MODE is recording or tracing, not {other:?}"),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let client = monapi::Client::from_env()?;
        client.login().await?;
        for _ in 0..calls {
            if mode == "recording" {
                let recording = Recording::new(None);
                recording.scope(client.agents()).await?;
                assert_eq!(recording.take().spans.len(), 2);
            } else {
                client.agents().await?;
                exporter.reset();
            }
        }
        Ok(())
    })
}
