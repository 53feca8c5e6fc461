//! The cluster model: Pods and Nodes as kube-scheduler and descheduler see
//! them, read tolerantly from stored API objects (`serde_json::Value` or
//! JSON text), and the amounts they carry.
//!
//! - [`pod`]: [`pod::PodInfo`] — effective requests (kube `PodRequests`),
//!   QoS class, the spec parts the filters read, the short per-version
//!   [`pod::filter_fields`] the store keeps;
//! - [`node`]: [`node::NodeInfo`] — allocatable, taints, cordon, readiness;
//! - [`quantity`], [`resources`]: Kubernetes quantities parsed exactly and
//!   kept as integers (millicores, bytes, counts);
//! - [`percent`]: percent of allocatable as every output writes it;
//! - [`fields`]: the parts of Pod and Node objects the store keeps per version;
//! - [`measured`]: measured usage (cpu, memory actually used) per node and
//!   pod at an instant, as the planner and the usage analyses read it;
//! - [`objects`]: Namespace, PodDisruptionBudget, PriorityClass and PVC as
//!   the planner reads them;
//! - [`sparse`]: rarely set parts of a model, kept out of line;
//! - [`labels`]: a pod's string maps as sorted slices of shared strings.
//!
//! Pure data: nothing here does I/O.

pub(crate) mod extract;
pub mod fields;
pub mod labels;
pub mod measured;
pub mod node;
pub mod objects;
pub mod percent;
pub mod pod;
pub mod quantity;
pub mod resources;
pub mod sparse;
