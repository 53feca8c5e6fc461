//! Running `kdrift` as its own process for a benchmark: its wall time and
//! peak RSS (shared by the `plan` and `commands` benches through `#[path]`).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The `kdrift` binary cargo built for this bench.
pub const KDRIFT: &str = env!("CARGO_BIN_EXE_kdrift");

/// One run of a command: wall seconds and peak RSS in KiB.
pub struct Run {
    /// Process start to exit, seconds.
    pub secs: f64,
    /// The last `VmHWM` read while it ran, KiB.
    pub peak_kib: u64,
}

impl Run {
    /// The peak RSS, MiB.
    pub fn mib(&self) -> f64 {
        self.peak_kib as f64 / 1024.0
    }
}

/// Runs `kdrift ARGS…` with stdout to `out`, stderr inherited; its wall
/// time and its peak RSS in KiB: the last `VmHWM` (a high-water mark) read
/// from `/proc/PID/status` every 2 ms while it runs (as the plan bench:
/// without `unsafe` there is no `wait4`; a peak in its last 2 ms would be
/// missed).
pub fn run(args: &[&str], out: &Path) -> Result<Run, String> {
    let stdout = File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let t = Instant::now();
    let mut child = Command::new(KDRIFT)
        .args(args)
        .stdout(stdout)
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("{KDRIFT}: {e}"))?;
    let status_file = PathBuf::from(format!("/proc/{}/status", child.id()));
    let mut peak_kib = 0;
    let status = loop {
        if let Some(hwm) = std::fs::read_to_string(&status_file).ok().as_deref().and_then(vm_hwm_kib) {
            peak_kib = peak_kib.max(hwm);
        }
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let secs = t.elapsed().as_secs_f64();
    if !status.success() {
        return Err(format!("kdrift {} failed ({status}; its stderr is above)", args.join(" ")));
    }
    Ok(Run { secs, peak_kib })
}

/// `VmHWM` of a `/proc/PID/status` text, KiB (absent once the process exited).
pub fn vm_hwm_kib(status: &str) -> Option<u64> {
    status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
}
