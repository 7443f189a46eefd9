//! The `monapi` command: the library's [`monapi_cli::run`] with this process's arguments.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(monapi_cli::run(std::env::args_os()))
}
