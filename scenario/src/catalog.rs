//! The static cast of the story: the five nodes, the DaemonSets and the
//! Deployments with their requests and scheduling preferences.
//!
//! The numbers here are what makes the end state come out at exactly 1942m
//! requested on node-1 and 580m on node-5; the tests recompute those sums
//! from the emitted pod objects, so a change here shows up there.

/// CPU allocatable of every node, in millicores.
pub(crate) const NODE_CPU_M: i64 = 2000;
/// Pods allocatable of every node.
pub(crate) const NODE_PODS: i64 = 110;
/// i915 devices (shared slots) a GPU node advertises.
pub(crate) const NODE_I915: i64 = 10;

/// One node of the cluster.
#[derive(Debug)]
pub(crate) struct NodeDef {
    /// Node name (`node-1` … `node-5`).
    pub name: &'static str,
    /// Allocatable memory in MiB.
    pub mem_alloc_mi: i64,
    /// Memory capacity in MiB (allocatable plus system reservations).
    pub mem_capacity_mi: i64,
    /// Has an Intel iGPU (`gpu.intel.com/i915`), AVX2 and the fast CPU model.
    pub fast: bool,
    /// InternalIP.
    pub address: &'static str,
}

/// The nodes, in name order.
pub(crate) const NODES: [NodeDef; 5] = [
    NodeDef { name: "node-1", mem_alloc_mi: 7901, mem_capacity_mi: 8001, fast: true, address: "192.168.10.11" },
    NodeDef { name: "node-2", mem_alloc_mi: 7901, mem_capacity_mi: 8001, fast: true, address: "192.168.10.12" },
    NodeDef { name: "node-3", mem_alloc_mi: 7901, mem_capacity_mi: 8001, fast: true, address: "192.168.10.13" },
    NodeDef { name: "node-4", mem_alloc_mi: 7901, mem_capacity_mi: 8001, fast: true, address: "192.168.10.14" },
    NodeDef { name: "node-5", mem_alloc_mi: 7901, mem_capacity_mi: 8001, fast: false, address: "192.168.10.15" },
];

/// Label carrying the CPU model id (node-feature-discovery).
pub(crate) const CPU_MODEL_LABEL: &str = "feature.node.kubernetes.io/cpu-model.id";
/// Label present only on CPUs with AVX2 (x86-64-v3).
pub(crate) const AVX2_LABEL: &str = "feature.node.kubernetes.io/cpu-cpuid.AVX2";
/// Label of nodes with an Intel GPU.
pub(crate) const GPU_LABEL: &str = "intel.feature.node.kubernetes.io/gpu";
/// The extended resource of the Intel GPU plugin.
pub(crate) const I915: &str = "gpu.intel.com/i915";

/// How the pod's resources are declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Qos {
    /// No requests, no limits.
    BestEffort,
    /// Requests, a memory limit of twice the request, no CPU limit.
    Burstable,
    /// Limits equal to requests.
    Guaranteed,
}

/// A preferred node affinity (weight 100) that the four fast nodes satisfy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pref {
    /// No node preference.
    None,
    /// `kubernetes.io/hostname In [node-1, node-2, node-3, node-4]`.
    FastHosts,
    /// `feature.node.kubernetes.io/cpu-cpuid.AVX2 In [true]`.
    Avx2,
}

/// One container.
#[derive(Debug, Clone)]
pub(crate) struct ContainerDef {
    /// Container name.
    pub name: &'static str,
    /// Image reference.
    pub image: String,
    /// CPU request in millicores (0 with BestEffort).
    pub cpu_m: i64,
    /// Memory request in MiB (0 with BestEffort).
    pub mem_mi: i64,
    /// i915 slots requested (and limited).
    pub i915: i64,
    /// Declaration style.
    pub qos: Qos,
}

/// One Deployment.
#[derive(Debug, Clone)]
pub(crate) struct DeploymentDef {
    /// Namespace.
    pub namespace: &'static str,
    /// Name (also the `app` label).
    pub name: &'static str,
    /// Replicas.
    pub replicas: u32,
    /// Containers.
    pub containers: Vec<ContainerDef>,
    /// Preferred node affinity.
    pub pref: Pref,
}

/// One DaemonSet.
#[derive(Debug, Clone)]
pub(crate) struct DaemonSetDef {
    /// Namespace.
    pub namespace: &'static str,
    /// Name.
    pub name: &'static str,
    /// The single container.
    pub container: ContainerDef,
    /// Runs only on nodes labelled with [`GPU_LABEL`].
    pub gpu_only: bool,
}

fn c(name: &'static str, image: &str, cpu_m: i64, mem_mi: i64, qos: Qos) -> ContainerDef {
    let (cpu_m, mem_mi) = if qos == Qos::BestEffort { (0, 0) } else { (cpu_m, mem_mi) };
    ContainerDef { name, image: image.to_string(), cpu_m, mem_mi, i915: 0, qos }
}

/// The DaemonSets: node-exporter everywhere (50m), kube-proxy everywhere
/// (BestEffort), the Intel GPU plugin on the GPU nodes (40m).
pub(crate) fn daemonsets() -> Vec<DaemonSetDef> {
    use Qos::*;
    vec![
        DaemonSetDef {
            namespace: "kube-system",
            name: "kube-proxy",
            container: c("kube-proxy", "registry.k8s.io/kube-proxy:v1.33.5", 0, 0, BestEffort),
            gpu_only: false,
        },
        DaemonSetDef {
            namespace: "monitoring",
            name: "node-exporter",
            container: c("node-exporter", "quay.io/prometheus/node-exporter:v1.9.1", 50, 64, Burstable),
            gpu_only: false,
        },
        DaemonSetDef {
            namespace: "kube-system",
            name: "intel-gpu-plugin",
            container: c("intel-gpu-plugin", "intel/intel-gpu-plugin:0.32.1", 40, 45, Burstable),
            gpu_only: true,
        },
    ]
}

/// The Deployments, in creation order (the initial placement replays them in
/// this order on an empty cluster).
///
/// Tuning notes: plex comes early so that it starts on node-4, spends day 1
/// on node-3 and is evicted from node-3 early in drain #2's batch, while
/// node-1 still has room. home-assistant's odd 142m (a VPA recommendation in
/// the story) and radarr's 50m set node-1's final sum to 1942m; the requests
/// of the pods the scheduler packs onto node-1 after them are all above the
/// 58m left, so the last few land elsewhere. The BestEffort web apps have no
/// node preference: when the nightly rebalance evicts them from node-1 the
/// scheduler sends most of them to node-5, the emptiest node (the pile-up the
/// landing simulation warns about). Any change here moves placements: the
/// tests will say so.
pub(crate) fn deployments() -> Vec<DeploymentDef> {
    use Pref::*;
    use Qos::*;
    let d = |namespace, name, replicas, containers, pref| DeploymentDef { namespace, name, replicas, containers, pref };
    let mut plex = c("plex", "plexinc/pms-docker:1.41.3.9314", 400, 1024, Burstable);
    plex.i915 = 1;
    vec![
        d(
            "kube-system",
            "coredns",
            2,
            vec![c("coredns", "registry.k8s.io/coredns/coredns:v1.12.0", 100, 70, Burstable)],
            None,
        ),
        d(
            "kube-system",
            "metrics-server",
            1,
            vec![c("metrics-server", "registry.k8s.io/metrics-server/metrics-server:v0.7.2", 100, 200, Burstable)],
            None,
        ),
        d(
            "postgres",
            "postgres",
            1,
            vec![
                c("postgres", "postgres:16.6", 250, 1024, Guaranteed),
                c("exporter", "quay.io/prometheuscommunity/postgres-exporter:v0.16.0", 10, 32, Guaranteed),
            ],
            Avx2,
        ),
        d("media", "plex", 1, vec![plex], FastHosts),
        d("postgres", "pgbouncer", 2, vec![c("pgbouncer", "bitnami/pgbouncer:1.23.1", 25, 32, Burstable)], None),
        d("postgres", "pgadmin", 1, vec![c("pgadmin", "dpage/pgadmin4:8.14", 0, 0, BestEffort)], None),
        d(
            "monitoring",
            "prometheus",
            1,
            vec![c("prometheus", "quay.io/prometheus/prometheus:v3.0.1", 150, 1024, Burstable)],
            Avx2,
        ),
        d("monitoring", "grafana", 1, vec![c("grafana", "grafana/grafana:11.4.0", 50, 128, Burstable)], None),
        d(
            "monitoring",
            "alertmanager",
            1,
            vec![c("alertmanager", "quay.io/prometheus/alertmanager:v0.27.0", 20, 64, Burstable)],
            None,
        ),
        d("monitoring", "loki", 1, vec![c("loki", "grafana/loki:3.3.2", 100, 256, Burstable)], Avx2),
        d(
            "monitoring",
            "kube-state-metrics",
            1,
            vec![c(
                "kube-state-metrics",
                "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.14.0",
                10,
                64,
                Burstable,
            )],
            None,
        ),
        d(
            "monitoring",
            "blackbox-exporter",
            1,
            vec![c("blackbox-exporter", "quay.io/prometheus/blackbox-exporter:v0.25.0", 0, 0, BestEffort)],
            None,
        ),
        d(
            "monitoring",
            "uptime-kuma",
            1,
            vec![c("uptime-kuma", "louislam/uptime-kuma:1.23.16", 0, 0, BestEffort)],
            None,
        ),
        d("media", "sonarr", 1, vec![c("sonarr", "ghcr.io/onedr0p/sonarr:4.0.11", 100, 256, Burstable)], FastHosts),
        d("media", "radarr", 1, vec![c("radarr", "ghcr.io/onedr0p/radarr:5.16.3", 50, 256, Burstable)], FastHosts),
        d("media", "prowlarr", 1, vec![c("prowlarr", "ghcr.io/onedr0p/prowlarr:1.28.2", 50, 128, Burstable)], None),
        d("media", "bazarr", 1, vec![c("bazarr", "ghcr.io/onedr0p/bazarr:1.4.5", 50, 128, Burstable)], FastHosts),
        d(
            "media",
            "qbittorrent",
            1,
            vec![c("qbittorrent", "ghcr.io/onedr0p/qbittorrent:5.0.3", 150, 512, Burstable)],
            Avx2,
        ),
        d("media", "jellyseerr", 1, vec![c("jellyseerr", "fallenbagel/jellyseerr:2.1.0", 50, 256, Burstable)], None),
        d("media", "tautulli", 1, vec![c("tautulli", "ghcr.io/onedr0p/tautulli:2.15.0", 0, 0, BestEffort)], None),
        d("media", "unpackerr", 1, vec![c("unpackerr", "golift/unpackerr:0.14.5", 0, 0, BestEffort)], None),
        d(
            "media",
            "flaresolverr",
            1,
            vec![c("flaresolverr", "ghcr.io/flaresolverr/flaresolverr:v3.3.21", 0, 0, BestEffort)],
            None,
        ),
        d("web", "frontend", 6, vec![c("frontend", "ghcr.io/example/shop-frontend:2.8.1", 75, 64, Guaranteed)], Avx2),
        d("web", "api", 4, vec![c("api", "ghcr.io/example/shop-api:2.8.1", 75, 192, Guaranteed)], Avx2),
        d(
            "web",
            "ingress-nginx-controller",
            2,
            vec![c("controller", "registry.k8s.io/ingress-nginx/controller:v1.12.0", 100, 90, Burstable)],
            None,
        ),
        d("web", "redis", 1, vec![c("redis", "redis:7.4.1", 50, 64, Burstable)], None),
        d("web", "docs", 4, vec![c("docs", "ghcr.io/example/docs:2024.12", 0, 0, BestEffort)], None),
        d(
            "home",
            "home-assistant",
            1,
            vec![c("home-assistant", "ghcr.io/home-assistant/home-assistant:2024.12.5", 142, 512, Burstable)],
            FastHosts,
        ),
        d("home", "zigbee2mqtt", 1, vec![c("zigbee2mqtt", "koenkk/zigbee2mqtt:1.42.0", 50, 128, Burstable)], None),
        d("home", "mosquitto", 1, vec![c("mosquitto", "eclipse-mosquitto:2.0.20", 10, 32, Burstable)], None),
        d("home", "node-red", 1, vec![c("node-red", "nodered/node-red:4.0.8", 50, 128, Burstable)], None),
        d("home", "esphome", 1, vec![c("esphome", "ghcr.io/esphome/esphome:2024.12.2", 0, 0, BestEffort)], None),
        d("home", "homepage", 3, vec![c("homepage", "ghcr.io/gethomepage/homepage:v0.10.9", 0, 0, BestEffort)], None),
        d("home", "mealie", 1, vec![c("mealie", "ghcr.io/mealie-recipes/mealie:v2.4.2", 0, 0, BestEffort)], None),
        d("home", "ntfy", 1, vec![c("ntfy", "binwiederhier/ntfy:v2.11.0", 0, 0, BestEffort)], None),
        d(
            "home",
            "paperless",
            1,
            vec![c("paperless", "ghcr.io/paperless-ngx/paperless-ngx:2.13.5", 100, 512, Burstable)],
            Avx2,
        ),
        d("home", "vaultwarden", 1, vec![c("vaultwarden", "vaultwarden/server:1.32.7", 25, 64, Burstable)], None),
        d(
            "batch",
            "queue-worker",
            4,
            vec![c("worker", "ghcr.io/example/queue-worker:1.4.0", 100, 128, Burstable)],
            Avx2,
        ),
        d("batch", "flower", 1, vec![c("flower", "mher/flower:2.0.1", 0, 0, BestEffort)], None),
    ]
}
