//! `kdrift ingest victorialogs`: Kubernetes events (and, through the
//! OpenTelemetry k8sobjects receiver, any watched object) pulled from a
//! VictoriaLogs server into the store (victorialogs.md).
//!
//! - [`layout`]: the shippers' field layouts, detected from
//!   `/select/logsql/field_names` and converted into the objects the store keeps;
//! - [`client`]: the HTTP requests, with [`auth`] (Basic, Bearer, headers,
//!   tenant; secrets from the environment or files only) and [`url_query`]
//!   (the `--url`'s query parameters, `?authKey=…`, kept on every request, held);
//! - [`windows`]: `[start, end)` cut into windows sized with `/select/logsql/hits`;
//! - [`window`]: one window streamed into one ingest run, committed atomically
//!   with its progress row, or not at all;
//! - [`pull`]: the whole pull: layout, windows, retries with backoff, `--resume`;
//! - [`capped`]: a small JSON answer (and Prometheus') read whole, holding at most its cap.
//! - redaction: every form of every credential masked in what a server says
//!   ([`Redactor`], from `kdrift-rebalance`).

pub mod auth;
pub mod capped;
pub mod client;
pub mod error;
pub mod fetch;
pub mod layout;
pub mod lines;
pub mod logsql;
pub mod pull;
pub mod url_query;
pub mod window;
pub mod windows;

pub use auth::{Auth, CredentialSources, EnvNames, Secret, Tenant};
pub use client::{Timeouts, VlClient, JSON_ANSWER_LIMIT, VL_REQUEST_TIMEOUT};
pub use error::{Failure, VlError};
pub use layout::Layout;
pub use pull::{pull, NoPullProgress, PullFailed, PullOptions, PullProgress, PullReport, Retry};
pub use window::WindowReport;
pub use windows::Window;
