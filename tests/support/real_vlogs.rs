//! The real VictoriaLogs and VictoriaMetrics servers
//! (`../shared/tools/victoria-logs` and `victoria-metrics`, see their
//! README) for tests: started on 127.0.0.1 with a free port, a fresh data
//! directory and `-retentionPeriod=100y` (the scenario's timestamps are
//! old), stopped by its PID when dropped.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `victoria-logs` or `victoria-metrics`; killed (by its PID)
/// and its data removed on drop.
pub struct RealServer {
    child: Child,
    port: u16,
    _data: tempfile::TempDir,
}

/// The real VictoriaLogs server.
pub type RealVlogs = RealServer;

/// The real VictoriaMetrics server.
pub type RealVmetrics = RealServer;

/// `../shared/tools/NAME` next to the checkout, when present.
fn binary(name: &str) -> Option<PathBuf> {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    let path = PathBuf::from(manifest).join("../../shared/tools").join(name);
    path.is_file().then_some(path)
}

impl RealServer {
    /// Starts `victoria-logs` and waits until `/health` answers `OK`;
    /// `None` after printing why the calling test skips (no `../shared/tools`).
    ///
    /// # Panics
    /// When the binary is there but does not start within 20 s.
    pub fn start_or_skip(test: &str) -> Option<RealServer> {
        RealServer::launch_or_skip(test, "victoria-logs", &[])
    }

    /// Starts `victoria-metrics` as [`RealServer::start_or_skip`] does, with
    /// `-search.latencyOffset=0s` (queries see the samples just loaded).
    ///
    /// # Panics
    /// When the binary is there but does not start within 20 s.
    pub fn victoria_metrics_or_skip(test: &str) -> Option<RealServer> {
        RealServer::victoria_metrics_with_or_skip(test, &[])
    }

    /// [`RealServer::victoria_metrics_or_skip`] with more flags (limits
    /// such as `-search.maxSamplesPerQuery=150`).
    ///
    /// # Panics
    /// When the binary is there but does not start within 20 s.
    pub fn victoria_metrics_with_or_skip(test: &str, flags: &[&str]) -> Option<RealServer> {
        let mut all = vec!["-search.latencyOffset=0s"];
        all.extend_from_slice(flags);
        RealServer::launch_or_skip(test, "victoria-metrics", &all)
    }

    fn launch_or_skip(test: &str, name: &str, extra: &[&str]) -> Option<RealServer> {
        let Some(bin) = binary(name) else {
            eprintln!(
                "{test}: SKIPPED: ../shared/tools/{name} is absent (a clone outside the workplace); CI always has it"
            );
            return None;
        };
        let data = tempfile::tempdir().expect("data dir");
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("free port").local_addr().expect("addr").port();
        let child = Command::new(bin)
            .arg(format!("-storageDataPath={}", data.path().display()))
            .arg(format!("-httpListenAddr=127.0.0.1:{port}"))
            .arg("-retentionPeriod=100y")
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("start {name}: {e}"));
        let server = RealServer { child, port, _data: data };
        let deadline = Instant::now() + Duration::from_secs(20);
        while server.get("/health").as_deref() != Some("OK") {
            assert!(Instant::now() < deadline, "{name} did not answer /health within 20 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(server)
    }

    /// POSTs `body` to `path` (`/api/v1/import/prometheus`), expecting a 2xx.
    ///
    /// # Panics
    /// When the server does not accept it.
    pub fn post(&self, path: &str, body: String) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let status = rt.block_on(async {
            let r = reqwest::Client::new().post(format!("{}{path}", self.url())).body(body).send().await;
            r.expect("post").status()
        });
        assert!(status.is_success(), "POST {path}: {status}");
    }

    /// POSTs NDJSON `lines` to `/insert/jsonline?ARGS` as
    /// `application/stream+json` (a body without that type is answered 200
    /// and ignored), expecting a 2xx: loading rows into VictoriaLogs.
    ///
    /// # Panics
    /// When the server does not accept them.
    pub fn insert_jsonline(&self, args: &str, lines: String) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let status = rt.block_on(async {
            let r = reqwest::Client::new()
                .post(format!("{}/insert/jsonline?{args}", self.url()))
                .header("Content-Type", "application/stream+json")
                .body(lines)
                .send()
                .await;
            r.expect("insert").status()
        });
        assert!(status.is_success(), "POST /insert/jsonline: {status}");
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Makes the rows inserted so far searchable (`/internal/force_flush`).
    ///
    /// # Panics
    /// When the server does not answer.
    pub fn flush(&self) {
        self.get("/internal/force_flush").expect("force_flush");
    }

    fn get(&self, path: &str) -> Option<String> {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        rt.block_on(async {
            let r = reqwest::get(format!("{}{path}", self.url())).await.ok()?;
            r.status().is_success().then_some(())?;
            r.text().await.ok().map(|t| t.trim().to_string())
        })
    }
}

impl Drop for RealServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
