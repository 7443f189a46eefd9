//! The tokio runtime of the process: one per process, built on first use and again in a
//! child after `fork()`. Blocking calls (`blocking.rs`) and the asyncio bridge (`bridge/`)
//! both run their futures on it.

use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, MutexGuard};

use tokio::runtime::Runtime;

/// A tokio runtime and the process that built it.
struct Slot {
    pid: u32,
    runtime: Runtime,
}

/// The runtime of this process. Slots are never freed: a child of `fork()` inherits its
/// parent's slot without the threads that ran it, so it builds its own and leaks the copy
/// (dropping it would wait for threads that do not exist in the child).
static SLOT: AtomicPtr<Slot> = AtomicPtr::new(ptr::null_mut());

/// The tokio runtime of the current process, built on first use and again in a forked child.
pub fn runtime() -> &'static Runtime {
    let pid = std::process::id();
    loop {
        let current = SLOT.load(Ordering::Acquire);
        // SAFETY: slots are leaked, never freed, so a published pointer stays valid.
        if let Some(slot) = unsafe { current.as_ref() } {
            if slot.pid == pid {
                return &slot.runtime;
            }
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(worker_threads())
            .thread_name("monapi-runtime")
            .enable_all()
            .build()
            .expect("cannot start the tokio runtime (out of threads or file descriptors?)");
        let fresh = Box::into_raw(Box::new(Slot { pid, runtime }));
        match SLOT.compare_exchange(current, fresh, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => {
                if !current.is_null() {
                    tracing::debug!(target: "monapi", pid, "new process (fork): started a new runtime");
                }
                // SAFETY: just published, never freed.
                return unsafe { &(*fresh).runtime };
            }
            Err(_) => {
                // Another thread won the race; drop ours without waiting and use theirs.
                // SAFETY: `fresh` was never published.
                let lost = unsafe { Box::from_raw(fresh) };
                lost.runtime.shutdown_background();
            }
        }
    }
}

/// Worker threads of the runtime: `MONAPI_RUNTIME_THREADS`, or one per core less the thread
/// that builds the Python objects (1 to 4). The workers only move bytes and parse; a
/// worker more than the cores can keep busy costs a wake-up per call (bench/RESULTS.md,
/// "Choices measured in the code").
fn worker_threads() -> usize {
    std::env::var("MONAPI_RUNTIME_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| (1..=64).contains(n))
        .unwrap_or_else(|| {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            cores.saturating_sub(1).clamp(1, 4)
        })
}

/// Locks a mutex, ignoring poisoning (our critical sections leave data consistent).
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
