//! The `kdrift` binary: argument parsing and rendering only. Every analysis
//! lives in the library crates; `main` picks stdout/stderr and turns the
//! outcome into an exit code (0 found/ok, 1 nothing found, 2 error).

mod args;
mod cmd;
mod completion;
mod duration;
mod examples;
mod format;
mod hints;
mod instant;
mod plugin;
mod progress;
mod render;
mod selector;
mod signals;

use std::io::Write;
use std::process::ExitCode;

use clap::FromArgMatches;

/// mimalloc instead of glibc malloc: an analysis of a large store builds and
/// drops millions of small allocations (pod and node models, rows), where
/// glibc's allocator took about a third of the time (BENCHMARKS.md, issue 6).
/// Built without transparent huge pages (`no_thp`): their first-touch faults
/// were ~1 s of system time loading 150,000 pods (issue 39).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let mut argv = std::env::args_os();
    if plugin::is_completer(std::path::Path::new(&argv.next().unwrap_or_default())) {
        let words: Vec<_> = argv.collect();
        let done = completion::kubectl_complete(&words, &mut std::io::stdout().lock());
        return if done.is_ok() { ExitCode::SUCCESS } else { ExitCode::from(2) };
    }
    completion::complete_from_env(plugin::bin());
    // As `kubectl-kdrift` (kubectl's plugin), usage lines say `kubectl kdrift`;
    // every subcommand's --help ends with an example.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let matches = match examples::command().bin_name(plugin::usage_name()).try_get_matches_from(&argv) {
        Ok(matches) => matches,
        Err(e) => match hints::tip(&e, &argv) {
            Some(tip) => {
                let _ = e.print();
                eprintln!("\n{tip}");
                std::process::exit(e.exit_code());
            }
            None => e.exit(),
        },
    };
    let mut cli = args::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    cli.output = cli.format.output();
    let mode = progress::mode::init(cli.log_format);
    init_tracing(cli.verbose, mode);
    match cmd::run(cli) {
        Ok(code) => code,
        Err(err) => {
            // A closed pipe (`kdrift … | head`) is not an error.
            if err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            // Redacted of every credential held and every credential shape
            // (as stored errors are: break-it 41 G2, another client's
            // headers echoed in a 400 body): an error may quote a server, or
            // a client key as rustls' byte array (break-it 32 N2).
            // The paths typed on the command line kept as written (new-user trial 46).
            let text = progress::mode::redact(&format!("{err:#}"));
            // One line, control characters written visibly: an error may
            // quote a name from a store, a file or an argument (issue 34).
            let text = render::visible(&text);
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "kdrift: error: {text}");
            ExitCode::from(2)
        }
    }
}

/// Log lines on stderr: text (ANSI colour only in the bar mode: a terminal
/// without `NO_COLOR`) or, with `--log-format json`, one flattened JSON
/// object a line, progress events (target `kdrift::progress`) included.
fn init_tracing(verbose: u8, mode: progress::mode::Mode) {
    // kube's client logs each failed request at ERROR (and its watcher each
    // retry): kdrift reports the same failure once, with what to do.
    let level = match verbose {
        0 => "warn,kdrift::progress=info,kube_client=off,kube_runtime=off",
        1 => "info,kube_client=error,kube_runtime=error",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("KDRIFT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(|| RedactedStderr);
    let _ = match mode {
        progress::mode::Mode::Json => {
            builder.json().flatten_event(true).with_current_span(false).with_span_list(false).try_init()
        }
        progress::mode::Mode::Bar => builder.with_ansi(true).try_init(),
        progress::mode::Mode::Plain => builder.with_ansi(false).try_init(),
    };
}

/// stderr for log lines, each redacted of every credential held
/// ([`kdrift_rebalance::held()`]) and of every credential shape
/// ([`kdrift_rebalance::mask_patterns`]: the value after `Bearer`/`Basic`,
/// as in an `Authorization` header, a JWT): kube logs a failed request's
/// Status, and a body that is not JSON whole, at `-vv`. No target logs a
/// request's headers at `-vv` or `KDRIFT_LOG=trace` (kube's trace line
/// lists the answer's headers; hyper, tower and rustls none): the masking
/// is for what a server echoes, and for whatever a dependency may log in
/// future. The fmt layer writes one event in one `write`.
struct RedactedStderr;

impl Write for RedactedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = progress::mode::redact(&String::from_utf8_lossy(buf));
        std::io::stderr().lock().write_all(text.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}
