//! [`ClusterClient`] over a kube client connected by [`crate::cluster`]:
//! lists through [`crate::cluster::collect`] (paginated, items completed
//! with `kind`/`apiVersion`), gets and Evictions as raw requests, so the
//! executor sees exactly the JSON the API server sends — but for the
//! credentials kdrift holds, masked in every object listed or read
//! ([`crate::redact::mask_held_in`], as the store masks its records): a
//! server that echoes the token into a pod's name gets it shown as `***`
//! by every plan, report and error built from that object (break-it 31
//! F2). Such a pod keeps its masked name everywhere; the executor does
//! not evict it ([`super::SkipCause::MaskedName`]).

use kube::api::{GetParams, Patch, PatchParams, PostParams};
use kube::core::Request;
use serde_json::Value;

use super::client::{kinds, ClientError, ClusterClient, EvictionRequest, PodPatcher, ResourceKind};
use crate::cluster::{collect, ClusterError, ClusterOptions, ListPager, Scope, DEFAULT_PAGE_SIZE};

/// A connected cluster.
#[derive(Clone)]
pub struct KubeClient {
    client: kube::Client,
    /// Objects per list request (kubectl's `--chunk-size`).
    page_size: u32,
    /// The API server's URL, when connected by [`KubeClient::connect`].
    server: Option<String>,
    /// Most bytes of one list page read ([`crate::MAX_PAGE_BYTES`] unless set).
    max_page_bytes: usize,
}

impl std::fmt::Debug for KubeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KubeClient").finish_non_exhaustive()
    }
}

impl KubeClient {
    /// Wraps a kube client.
    pub fn new(client: kube::Client) -> KubeClient {
        KubeClient { client, page_size: DEFAULT_PAGE_SIZE, server: None, max_page_bytes: crate::MAX_PAGE_BYTES }
    }

    /// The API server's URL (`https://host:port`), when connected by
    /// [`KubeClient::connect`]: what errors name.
    pub fn server(&self) -> Option<&str> {
        self.server.as_deref()
    }

    /// Lists `page_size` objects per request ([`DEFAULT_PAGE_SIZE`] unless
    /// set; 0: no limit, one request per list).
    pub fn with_page_size(self, page_size: u32) -> KubeClient {
        KubeClient { page_size, ..self }
    }

    /// Reads at most `bytes` of one list page (`--max-page-bytes`).
    pub fn with_max_page_bytes(self, bytes: usize) -> KubeClient {
        KubeClient { max_page_bytes: bytes, ..self }
    }

    /// Connects as kubectl would ([`ClusterOptions::config`]), with kube's
    /// own retrying of 429/503/504 turned off: a 429 from the Eviction API is
    /// a PodDisruptionBudget's answer, to be reported and not retried for
    /// minutes, and the executor retries 5xx itself (bounded, then it stops).
    ///
    /// # Errors
    /// [`ClusterError`] naming the kubeconfig or the server.
    pub async fn connect(options: &ClusterOptions) -> Result<KubeClient, ClusterError> {
        let mut config = options.config().await?;
        config.default_retry = false;
        let url = crate::cluster::credentials::shown_url(&config.cluster_url.to_string());
        match crate::cluster::redirect::client(config) {
            Ok(client) => Ok(KubeClient { server: Some(url), ..KubeClient::new(client) }),
            Err(source) => Err(ClusterError::Client { url, source }),
        }
    }
}

fn scope(namespace: Option<&str>) -> Scope {
    match namespace {
        Some(ns) => Scope::Namespace(ns.to_string()),
        None => Scope::AllNamespaces,
    }
}

impl ClusterClient for KubeClient {
    async fn list(&self, kind: ResourceKind, namespace: Option<&str>) -> Result<Vec<Value>, ClientError> {
        let pager = ListPager::new(self.client.clone(), &kind, &scope(namespace), self.page_size)
            .with_max_page_bytes(self.max_page_bytes);
        let mut list = collect(pager).await?;
        for item in &mut list.items {
            crate::redact::mask_held_in(item);
        }
        Ok(list.items)
    }

    async fn get(&self, kind: ResourceKind, namespace: Option<&str>, name: &str) -> Result<Option<Value>, ClientError> {
        let path = kind.collection_path(&scope(namespace));
        let request = Request::new(path.clone())
            .get(name, &GetParams::default())
            .map_err(|e| ClientError::Decode(format!("{}: cannot build the request: {e}", kind.name())))?;
        match self.client.request::<Value>(request).await {
            Ok(mut v) => {
                crate::redact::mask_held_in(&mut v);
                Ok(Some(v))
            }
            Err(e) => match ClusterError::from_kube(&kind.name(), &format!("{path}/{name}"), e) {
                ClusterError::Api { code: 404, .. } => Ok(None),
                other => Err(other.into()),
            },
        }
    }

    async fn evict(&self, eviction: &EvictionRequest) -> Result<(), ClientError> {
        let path = kinds::POD.collection_path(&Scope::Namespace(eviction.namespace.clone()));
        let body = serde_json::to_vec(&eviction.body()).map_err(|e| ClientError::Decode(e.to_string()))?;
        let request = Request::new(path.clone())
            .create_subresource("eviction", &eviction.name, &PostParams::default(), body)
            .map_err(|e| ClientError::Decode(format!("pods/eviction: cannot build the request: {e}")))?;
        self.client.request::<Value>(request).await.map(|_| ()).map_err(|e| {
            ClusterError::from_kube("pods/eviction", &format!("{path}/{}/eviction", eviction.name), e).into()
        })
    }
}

impl PodPatcher for KubeClient {
    async fn patch_pod(&self, namespace: &str, name: &str, patch: &Value) -> Result<(), ClientError> {
        let path = kinds::POD.collection_path(&Scope::Namespace(namespace.to_string()));
        let request = Request::new(path.clone())
            .patch(name, &PatchParams::default(), &Patch::Merge(patch))
            .map_err(|e| ClientError::Decode(format!("pods: cannot build the patch: {e}")))?;
        self.client
            .request::<Value>(request)
            .await
            .map(|_| ())
            .map_err(|e| ClusterError::from_kube("pods", &format!("{path}/{name}"), e).into())
    }
}
