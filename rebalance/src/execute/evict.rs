//! The eviction loop: each planned eviction in turn (bounded concurrency),
//! re-checked on the live pod, probed, evicted with retries, its
//! replacement awaited, every step recorded. See the module docs of
//! [`super`] for the rules.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::future::Future;
use std::time::Instant;

use chrono::{DateTime, Utc};
use futures::stream::{self, StreamExt};
use serde_json::Value;

use super::client::{is_pdb_refusal, kinds, ClientError, ClusterClient, EvictionRequest};
use super::probe::{self, ProbeAnswer};
use super::progress::Step;
use super::record::{attempt_event, replacement_event, run_name, run_object, EventSink};
use super::replacement::wait_replacement;
use super::report::{EvictionOutcome, EvictionResult, ExecutionReport, Replacement, RunOutcome, SkipCause};
use super::ExecuteOptions;
use crate::document::{PlanDocument, PlannedEviction};
use crate::model::pod::PodInfo;
use crate::planner::{Snapshot, PREFER_NO_EVICTION};
use crate::policy::{NoEvictionPolicy, Policy};

/// A report with nothing done yet.
pub(super) fn empty_report(
    command: &str,
    policy_source: &str,
    started_at: DateTime<Utc>,
    options: &ExecuteOptions,
) -> ExecutionReport {
    ExecutionReport {
        run: run_name(started_at),
        command: command.to_string(),
        policy_source: policy_source.to_string(),
        started_at,
        finished_at: started_at,
        outcome: RunOutcome::Succeeded,
        replanned: false,
        differences: Vec::new(),
        difference_details: Vec::new(),
        notes: Vec::new(),
        planned: 0,
        results: Vec::new(),
        stop_reason: None,
        record_errors: Vec::new(),
        settings: options.settings(),
    }
}

/// Records the run; a failure is kept in the report.
pub(super) fn record_run<S: EventSink>(sink: &mut S, report: &mut ExecutionReport) {
    if let Err(e) = sink.record(&run_object(report)) {
        report.record_errors.push(format!("the run record: {e}"));
    }
}

/// State shared by the evictions in flight (all on one task).
pub(super) struct Shared<'a, S> {
    /// Why the run stopped, once it has.
    stop: RefCell<Option<String>>,
    /// Replacement pods already matched to an eviction (by uid).
    pub(super) claimed: RefCell<BTreeSet<String>>,
    /// Pod uids that existed before the run: never a replacement.
    pub(super) known: BTreeSet<String>,
    sink: RefCell<&'a mut S>,
    record_errors: RefCell<Vec<String>>,
    run: String,
}

impl<S: EventSink> Shared<'_, S> {
    fn stopped(&self) -> Option<String> {
        self.stop.borrow().clone()
    }

    fn stop(&self, why: String) {
        let mut stop = self.stop.borrow_mut();
        if stop.is_none() {
            tracing::warn!("stopping the run: {why}");
            *stop = Some(why);
        }
    }

    /// Records `object`; a sink failure stops the run.
    fn record(&self, object: Option<Value>) {
        let Some(object) = object else { return };
        let result = self.sink.borrow_mut().record(&object);
        if let Err(e) = result {
            let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("?").to_string();
            self.record_errors.borrow_mut().push(format!("{name}: {e}"));
            self.stop(format!("events cannot be recorded ({e})"));
        }
    }
}

/// Everything one eviction needs.
pub(super) struct Ctx<'a, 'b, C, S> {
    pub(super) client: &'a C,
    policy: &'a Policy,
    pub(super) options: &'a ExecuteOptions,
    http: Option<reqwest::Client>,
    pub(super) shared: &'a Shared<'b, S>,
}

/// Executes every eviction of `doc`, fills `report`, records the run.
pub(super) async fn execute<C: ClusterClient, S: EventSink>(
    client: &C,
    doc: &PlanDocument,
    policy: &Policy,
    live: &Snapshot,
    options: &ExecuteOptions,
    sink: &mut S,
    mut report: ExecutionReport,
) -> ExecutionReport {
    report.planned = doc.evictions.len();
    let http = if options.probes.is_empty() {
        None
    } else {
        // No Referer, no redirect to another origin (break-it 31 F3).
        match probe::http_client() {
            Ok(c) => Some(c),
            Err(e) => {
                report.notes.push(format!("no HTTP client for the probes ({e}): every probed pod is skipped"));
                None
            }
        }
    };
    let shared = Shared {
        stop: RefCell::new(None),
        claimed: RefCell::new(BTreeSet::new()),
        known: live.pods.iter().filter_map(|p| p.uid.clone()).collect(),
        sink: RefCell::new(sink),
        record_errors: RefCell::new(Vec::new()),
        run: report.run.clone(),
    };
    let ctx = Ctx { client, policy, options, http, shared: &shared };
    let total = doc.evictions.len();
    options.progress.0.planned(total);
    let mut results: Vec<EvictionResult> = stream::iter(doc.evictions.iter().enumerate())
        .map(|(i, e)| {
            let ctx = &ctx;
            async move {
                let pod = e.pod.key();
                let step = Step { index: i + 1, total, pod: &pod, node: &e.node };
                let result = one(ctx, e, step).await;
                ctx.options.progress.0.settled(step, &result.outcome);
                result
            }
        })
        .buffer_unordered(options.concurrency)
        .collect()
        .await;
    results.sort_by_key(|r| r.order);
    drop(ctx);
    report.results = results;
    report.stop_reason = shared.stop.take();
    report.record_errors.extend(shared.record_errors.take());
    report.outcome = if report.stop_reason.is_some() { RunOutcome::Stopped } else { RunOutcome::Succeeded };
    report.finished_at = Utc::now();
    let sink = shared.sink.into_inner();
    record_run(sink, &mut report);
    report
}

/// One planned eviction, start to end.
async fn one<C: ClusterClient, S: EventSink>(
    ctx: &Ctx<'_, '_, C, S>,
    e: &PlannedEviction,
    step: Step<'_>,
) -> EvictionResult {
    let started_at = Utc::now();
    let finish = |outcome: EvictionOutcome| EvictionResult {
        order: e.order,
        pod: e.pod.key(),
        node: e.node.clone(),
        profile: e.profile.clone(),
        plugin: e.plugin.clone(),
        outcome,
        started_at,
        finished_at: Utc::now(),
    };
    if let Some(why) = ctx.shared.stopped() {
        return finish(EvictionOutcome::NotAttempted { reason: why });
    }
    let settle = |outcome: EvictionOutcome| {
        ctx.shared.record(attempt_event(&ctx.shared.run, e, &outcome, Utc::now()));
        finish(outcome)
    };
    let fail = |attempts: u32, what: &str, err: &ClientError| {
        ctx.shared.stop(format!("eviction {} ({}): {what}: {err}", e.order, e.pod.key()));
        settle(EvictionOutcome::Failed { attempts, error: format!("{what}: {err}") })
    };

    if let Some(message) = masked_name(e) {
        return settle(EvictionOutcome::Skipped { cause: SkipCause::MaskedName, message });
    }
    let (got, attempts) =
        retrying(ctx.options, || ctx.client.get(kinds::POD, Some(&e.pod.namespace), &e.pod.name)).await;
    let live = match got {
        Ok(v) => v,
        Err(err) => return fail(attempts, "reading the pod", &err),
    };
    let pod = match check_live(e, live.as_ref(), ctx.policy) {
        Ok(pod) => pod,
        Err((cause, message)) => return settle(EvictionOutcome::Skipped { cause, message }),
    };
    if let Some(message) = probe_says_in_use(ctx, &pod).await {
        return settle(EvictionOutcome::Skipped { cause: SkipCause::InUse, message });
    }
    // The run may have stopped while this one was being checked.
    if let Some(why) = ctx.shared.stopped() {
        return finish(EvictionOutcome::NotAttempted { reason: why });
    }

    let request = EvictionRequest {
        namespace: pod.namespace.clone(),
        name: pod.name.clone(),
        uid: pod.uid.clone(),
        grace_period_seconds: ctx.policy.grace_period_seconds,
    };
    let evicted_at = Instant::now();
    let (result, attempts) = retrying(ctx.options, || ctx.client.evict(&request)).await;
    match result {
        Ok(()) => {}
        Err(ClientError::Status { code: 429, message }) if is_pdb_refusal(&message) => {
            return settle(EvictionOutcome::Blocked { message });
        }
        // The pod was there a moment ago: an earlier attempt that timed out
        // on our side went through on the server's.
        Err(ClientError::Status { code: 404, .. }) if attempts > 1 => {}
        Err(ClientError::Status { code: 404, message }) => {
            return settle(EvictionOutcome::Skipped {
                cause: SkipCause::Gone,
                message: format!("pod not found when evicting: {message}"),
            });
        }
        Err(ClientError::Status { code: 409, message }) => {
            return settle(EvictionOutcome::Skipped {
                cause: SkipCause::Replaced,
                message: format!("the pod changed before its eviction (uid precondition): {message}"),
            });
        }
        Err(err) => return fail(attempts, "evicting", &err),
    }
    let evicted = EvictionOutcome::Evicted { attempts, replacement: Replacement::NotWaited };
    ctx.shared.record(attempt_event(&ctx.shared.run, e, &evicted, Utc::now()));
    ctx.options.progress.0.evicted(step, !ctx.options.ready_timeout.is_zero());
    let replacement = wait_replacement(ctx, e, &pod, evicted_at).await;
    ctx.shared.record(replacement_event(&ctx.shared.run, e, &replacement, Utc::now()));
    finish(EvictionOutcome::Evicted { attempts, replacement })
}

/// Why a planned pod is not evicted when its name or namespace is known
/// only masked: the API server echoed a held credential into it
/// ([`super::KubeClient`] masks every object it reads). `*` is in no
/// Kubernetes name (RFC 1123), so a `***` there is kdrift's mask. Evicting
/// by the real name would mean keeping a credential-bearing name around
/// (and `rebalance apply` reads the masked plan file): kdrift refuses and
/// the run goes on with the other pods.
fn masked_name(e: &PlannedEviction) -> Option<String> {
    (e.pod.namespace.contains(crate::redact::MASK) || e.pod.name.contains(crate::redact::MASK)).then(|| {
        "the pod's name holds a credential kdrift holds (the API server echoes it; shown masked): kdrift does not \
         evict a pod it cannot name; check the API server, then evict the pod yourself"
            .to_string()
    })
}

/// The live pod, or why it is not evicted.
fn check_live(e: &PlannedEviction, live: Option<&Value>, policy: &Policy) -> Result<PodInfo, (SkipCause, String)> {
    let Some(v) = live else {
        return Err((SkipCause::Gone, "the pod no longer exists".to_string()));
    };
    let pod =
        PodInfo::from_json(v).map_err(|err| (SkipCause::Unreadable, format!("the live pod cannot be read: {err}")))?;
    if pod.is_terminal() {
        let phase = pod.phase.map(|p| p.as_str()).unwrap_or("?");
        return Err((SkipCause::Gone, format!("the pod has finished (phase {phase})")));
    }
    if let (Some(planned), Some(now)) = (&e.pod.uid, &pod.uid) {
        if planned != now {
            return Err((SkipCause::Replaced, format!("a new pod of that name exists (uid {now}, planned {planned})")));
        }
    }
    if pod.is_terminating() {
        return Err((SkipCause::Terminating, "the pod is already being deleted".to_string()));
    }
    if pod.node_name.as_deref() != Some(e.node.as_str()) {
        let now = pod.node_name.as_deref().unwrap_or("no node");
        return Err((SkipCause::Moved, format!("the pod runs on {now} now, not on {}", e.node)));
    }
    let mandatory = policy
        .profiles
        .iter()
        .find(|p| p.name == e.profile)
        .is_some_and(|p| p.default_evictor().no_eviction_policy == Some(NoEvictionPolicy::Mandatory));
    if mandatory && pod.annotations.contains_key(PREFER_NO_EVICTION) {
        return Err((
            SkipCause::MandatoryNoEviction,
            format!("the pod has the {PREFER_NO_EVICTION} annotation and noEvictionPolicy is Mandatory"),
        ));
    }
    Ok(pod)
}

/// Asks every probe whose selector matches the pod; the first that does not
/// answer "idle" says why the pod is skipped.
async fn probe_says_in_use<C, S>(ctx: &Ctx<'_, '_, C, S>, pod: &PodInfo) -> Option<String> {
    for p in ctx.options.probes.iter().filter(|p| p.selector.matches(&pod.labels)) {
        let answer = match &ctx.http {
            Some(http) => probe::ask(http, p, &pod.namespace, &pod.name).await,
            None => ProbeAnswer::Unknown("no HTTP client".to_string()),
        };
        let url = p.shown_target(&pod.namespace, &pod.name);
        match answer {
            ProbeAnswer::Idle => {}
            ProbeAnswer::InUse(what) => return Some(format!("in use according to {url} ({what})")),
            ProbeAnswer::Unknown(why) => {
                return Some(format!("{url} cannot tell whether the pod is in use ({why}); treated as in use"))
            }
        }
    }
    None
}

/// Calls `call` until it succeeds, fails for good, or the retries are used
/// up; each call bounded by the request timeout, the delays doubling from
/// the backoff. Returns the last result and the number of calls.
pub(super) async fn retrying<T, F, Fut>(options: &ExecuteOptions, mut call: F) -> (Result<T, ClientError>, u32)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, ClientError>>,
{
    let mut attempt: u32 = 0;
    loop {
        attempt += 1;
        let result = match tokio::time::timeout(options.request_timeout, call()).await {
            Ok(r) => r,
            Err(_) => Err(ClientError::Timeout(options.request_timeout)),
        };
        match result {
            Err(e) if e.is_transient() && attempt <= options.retries => {
                let delay = options.backoff.saturating_mul(1u32 << (attempt - 1).min(10));
                tracing::warn!("attempt {attempt} failed ({e}); retrying in {delay:?}");
                tokio::time::sleep(delay).await;
            }
            other => return (other, attempt),
        }
    }
}
