//! Talking to a live cluster from a command: a Tokio runtime, the kube
//! client chosen as kubectl would choose it, the plan source to report, and
//! the sink that records kdrift's evictions (the store, or memory with
//! `--no-store`).

use anyhow::Context;
use kdrift_ingest::{ActionError, StoreSink};
use kdrift_rebalance::PlanSource;
use kdrift_rebalance::{EventSink, KubeClient};
use kdrift_store::Store;
use serde_json::Value;

use crate::args::ClusterArgs;

/// A runtime, a connected client and the plan source (`live`, the context or kubeconfig).
pub fn connect(args: &ClusterArgs) -> anyhow::Result<(tokio::runtime::Runtime, KubeClient, PlanSource)> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting Tokio")?;
    let options = args.options();
    let client = runtime
        .block_on(KubeClient::connect(&options))
        .context("connecting to the cluster")?
        .with_max_page_bytes(args.max_page_bytes());
    let detail = match (&args.context, &args.kubeconfig) {
        (Some(c), _) => format!("context {c}"),
        (None, Some(k)) => format!("kubeconfig {}", k.display()),
        (None, None) => "current context (KUBECONFIG, ~/.kube/config or in-cluster)".to_string(),
    };
    Ok((runtime, client, PlanSource { kind: "live".to_string(), detail }))
}

/// Where the executor's records go.
pub enum Sink<'s> {
    /// Appended to the store.
    Store(StoreSink<'s>),
    /// Kept in memory (`--no-store`).
    Memory(Vec<Value>),
}

impl EventSink for Sink<'_> {
    type Error = ActionError;

    fn record(&mut self, object: &Value) -> Result<(), ActionError> {
        match self {
            Sink::Store(s) => s.record(object),
            Sink::Memory(v) => {
                v.push(object.clone());
                Ok(())
            }
        }
    }
}

/// Opens (or creates) the store unless `no_store`.
pub fn open_store(cli: &crate::args::Cli, no_store: bool) -> anyhow::Result<Option<Store>> {
    if no_store {
        return Ok(None);
    }
    let db = &cli.db;
    let store = Store::open_with(db, &crate::cmd::store_options(cli), &crate::progress::migrations::Migrations::new())
        .with_context(|| format!("opening store {} (or pass --no-store)", db.display()))?;
    crate::cmd::warn_abandoned_runs(&store)?;
    Ok(Some(store))
}
