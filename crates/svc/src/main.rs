//! The `svc` binary: command-line parsing and wiring of the services.
//!
//! Nothing here decides a business rule: every command calls a use case of a
//! `*-core` crate or starts a `*-http` router. Exit codes follow the command
//! contract: 0 ok, 1 user error, 2 transient (network, 5xx, busy store),
//! 3 internal.

mod admin;
mod alloc;
mod blobs_cmd;
mod catalog;
mod cli;
mod config;
mod courses;
mod diff_cmd;
mod mock_cmd;
mod output;
mod push;
mod sdk_cmd;
mod serve;

use std::process::ExitCode;

use crate::cli::{Cli, Command};
use crate::output::Output;

/// mimalloc instead of the system allocator. Parsing a large description
/// allocates hundreds of thousands of small maps and strings, and most of
/// what that cost with glibc's allocator was the kernel handing out and
/// zeroing fresh 4 KiB pages (about 19,600 page faults for `svc diff` on the
/// largest pair); mimalloc takes memory in large arenas that it advises for
/// transparent huge pages, about 600 faults for the same run. See
/// docs/operations.md, "Spec diff".
///
/// Two of its defaults are changed for a long-running server whose resident
/// size is what operators watch (docs/operations.md, "Memory and caches"):
/// transparent huge pages are not requested (the `no_thp` feature: a 2 MiB
/// page stays resident while any byte of it is used, which kept 20 to 30 MB
/// of a parse's freed memory), and freed pages are returned to the system
/// after 10 ms instead of 1 s ([`alloc::configure`]).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    alloc::configure();
    let cli = cli::parse();
    let out = Output::new(cli.json);
    // `svc diff` is local, synchronous work: starting the multi-thread
    // runtime (a worker thread per core) and the TLS provider would only
    // add start-up time to a command that is timed end to end.
    let cli = match cli.command {
        Command::Diff(args) => return finish(diff_cmd::run(args, &out), &out),
        command => Cli { command, ..cli },
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(err) => {
            out.error(&format!("could not start the async runtime: {err}"));
            return ExitCode::from(3);
        }
    };
    // One TLS crypto provider for the whole process (outbound HTTP, database
    // TLS); installing twice is harmless.
    drop(rustls::crypto::ring::default_provider().install_default());
    let result = runtime.block_on(async {
        match cli.command {
            Command::Serve(args) => serve::run(args, cli.global.clone(), &out).await,
            Command::Hub(command) => admin::run(command, &cli.global, &out).await,
            Command::Catalog(command) => catalog::run(command, &cli.global, &out).await,
            Command::Courses(command) => courses::run(command, &cli.global, &out).await,
            Command::Admin(command) => blobs_cmd::run(command, &cli.global, &out).await,
            Command::Push(args) => push::run(args, &out).await,
            Command::Diff(args) => diff_cmd::run(args, &out),
            Command::Mock(args) => mock_cmd::run(args, &out).await,
            Command::Sdk(args) => sdk_cmd::run(args, &out),
        }
    });
    finish(result, &out)
}

/// The exit code of a finished command, reporting its error if any.
fn finish(result: anyhow::Result<()>, out: &Output) -> ExitCode {
    match result {
        // Output lost to a full disk or similar is a user-visible failure;
        // a reader closing the pipe early is not.
        Ok(()) if out.write_failed() => ExitCode::from(1),
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let code = output::exit_code(&err);
            out.error(&format!("{err:#}"));
            ExitCode::from(code)
        }
    }
}
