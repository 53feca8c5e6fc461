//! `kdrift ingest file PATH...`: walks files and directories (a
//! `kubectl cluster-info dump` directory included), reads each dump
//! (gzip-compressed or not), and stores every object version in one run.
//! A bad file or record is reported and skipped; everything else loads.
//! Saved `kubectl top` tables among them are measured usage
//! ([`crate::top`]): each is stored as a run of usage samples of its own.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::gzip::{skipped_in, Capped, DecompressedCap, Members};
use crate::interrupt::{Interrupt, INTERRUPTED_RUN_MESSAGE};
use crate::parse::{looks_like_a_dump, not_a_dump_message, parse_bytes_with, Format, InputError, Naming, EMPTY_FILE};
use crate::store::{prepare_all, Prepared};
use crate::store::{sql, Store, StoreError};
use crate::store::{Committed, Rejected, RunCounts, RunStatus, RunWriter};
use crate::store::{Origin, Record};
use crate::top::{ingest_top_file_named, is_top_head, TopFileSummary};

/// File name endings `ingest file` reads when walking a directory (also with
/// `.gz`). Other files in a directory (a cluster-info dump's `logs.txt`) are
/// listed as ignored; a file named explicitly is read when its content is
/// JSON, NDJSON or YAML (`crate::parse::looks_like_a_dump`), else refused
/// with an error naming the formats.
pub const DUMP_EXTENSIONS: &[&str] = &["json", "yaml", "yml", "ndjson", "jsonl"];

/// Bounds on what one input file may make `ingest file` hold, each with
/// the flag that raises it (the CLI's); [`FileLimits::default`] is what
/// `kdrift ingest file` uses without flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileLimits {
    /// How far a gzip file may expand (`crate::gzip`, `--max-decompressed`).
    pub decompressed: DecompressedCap,
    /// The deepest nesting a YAML document may have, levels, checked before
    /// it is parsed (`crate::parse::depth`, `--max-yaml-depth`; default
    /// [`crate::parse::depth::MAX_YAML_DEPTH`]).
    pub yaml_depth: usize,
    /// Bytes of objects staged between two batch commits of a streamed
    /// NDJSON file, JSON List or YAML file, the memory bound of a streamed
    /// ingest; the NDJSON reader holds at most half as much ahead
    /// (`crate::ndjson_stream`, `crate::json_stream`, `crate::yaml_stream`:
    /// JSON and YAML files of at least a quarter of it stream, smaller ones
    /// are read whole; `--max-batch-bytes`; default
    /// `crate::ndjson_stream::BATCH_BYTES`).
    pub batch_bytes: u64,
    /// The most bytes one object (an NDJSON line, a JSON List item, a JSON
    /// document, a YAML document or List item) may take parsed
    /// (`kdrift_rebalance::parsed_size`, counted as it is built; a YAML
    /// document's nodes counted before it is parsed): a larger one is not
    /// built, it is an input error naming it and the limit, and the records
    /// around it load (`--max-parsed-bytes`; default
    /// [`crate::MAX_PARSED_BYTES`], 16 times the 64 MiB line limit plus 1 MiB;
    /// break-it 41 G3).
    pub parsed_bytes: u64,
}

impl Default for FileLimits {
    fn default() -> Self {
        FileLimits {
            decompressed: DecompressedCap::Default,
            yaml_depth: crate::parse::depth::MAX_YAML_DEPTH,
            batch_bytes: crate::ndjson_stream::BATCH_BYTES,
            parsed_bytes: crate::MAX_PARSED_BYTES,
        }
    }
}

/// What one input file gave.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct FileSummary {
    /// The path as given or found.
    pub location: String,
    /// The syntax it was read as (`None`: unreadable).
    pub format: Option<Format>,
    /// Object versions read.
    pub records: u64,
    /// Of which Events.
    pub events: u64,
    /// Of which other objects (pods, nodes, …).
    pub objects: u64,
    /// New versions the store did not have.
    pub added: u64,
    /// Versions the store already had.
    pub duplicates: u64,
    /// Documents kdrift does not keep: empty YAML documents, bookmarks,
    /// Secrets and ConfigMaps (`crate::parse::NOT_KEPT_KINDS`: never
    /// stored), kinds it has no use for (Services, Endpoints, …:
    /// `crate::parse::kinds::UNUSED_KINDS`), the container-log sections
    /// of a `kubectl cluster-info dump`.
    pub skipped: u64,
    /// Input errors (the file's other records still load).
    /// (The first `crate::kept_errors::KEPT_ERRORS_PER_FILE` of them, then
    /// one saying how many more were counted.)
    #[serde(serialize_with = "ser_errors")]
    pub errors: Vec<InputError>,
    /// Batches committed while this file was read (a streamed NDJSON file,
    /// JSON List or YAML file: `crate::ndjson_stream`, `crate::json_stream`,
    /// `crate::yaml_stream`); 0 for a file whose records all wait for the
    /// run's final commit.
    #[serde(skip)]
    pub batches: u64,
    /// Input errors past the kept ones, only counted (break-it 34 M1).
    pub errors_not_kept: u64,
    /// `errors` ends with the one saying how many more were counted.
    #[serde(skip)]
    pub(crate) more_said: bool,
}

fn ser_errors<S: serde::Serializer>(errors: &[InputError], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(errors.iter().map(ToString::to_string))
}

/// The outcome of one ingest run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct IngestReport {
    /// The run's id in `ingest_runs`.
    pub run_id: i64,
    /// ok / partial / failed.
    pub status: RunStatus,
    /// Per-file summaries, in the order read.
    pub files: Vec<FileSummary>,
    /// Files found in directories but not read (not a dump file ending).
    pub ignored: Vec<String>,
    /// Run totals (of an interrupted run: what its committed batches hold).
    pub counts: RunCounts,
    /// The run was interrupted ([`ingest_files_until`]): it is closed as
    /// `failed`, what was staged since its last batch commit is dropped,
    /// and `files` holds the files read before the interrupt.
    pub interrupted: bool,
    /// The interrupt came only during the run's final commit (every file
    /// read): too late to stop it, so the run completed with its usual
    /// status and is kept ([`ingest_files_until`]); the caller should still
    /// say the signal was seen.
    pub interrupted_during_commit: bool,
    /// Warnings about what was stored, e.g. a node name stored with two
    /// uids (query `run_node_uids`: dumps of two clusters given together?).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The saved `kubectl top` tables read, each stored as a run of usage
    /// samples of its own (`crate::top`), in the order read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<TopFileSummary>,
}

impl IngestReport {
    /// Input errors over all files (`kubectl top` tables included).
    pub fn error_count(&self) -> u64 {
        let usage: u64 = self.usage.iter().map(|u| u.error_total).sum();
        self.files.iter().map(FileSummary::error_total).sum::<u64>() + usage
    }
}

/// Progress callbacks (the CLI draws a bar on stderr; tests pass [`NoProgress`]).
pub trait Progress {
    /// Before reading: how many files and bytes in all.
    fn start(&mut self, _files: usize, _bytes: u64) {}
    /// A file is about to be read (after the interrupt was looked at).
    fn reading(&mut self, _location: &str) {}
    /// One file read and staged.
    fn file_done(&mut self, _summary: &FileSummary, _bytes: u64) {}
    /// Committing the run (deduplicate, derive).
    fn committing(&mut self) {}
}

/// Progress that shows nothing.
#[derive(Debug, Default)]
pub struct NoProgress;
impl Progress for NoProgress {}

/// Whether `path`'s name ends as a dump's ([`DUMP_EXTENSIONS`], also `.gz`).
pub(crate) fn is_dump_name(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    name.rsplit_once('.').is_some_and(|(_, ext)| DUMP_EXTENSIONS.contains(&ext))
}

fn is_yaml_name(location: &str) -> bool {
    Naming::of(location) == Naming::Yaml
}

/// Expands the given paths: files as they are, directories walked
/// recursively in sorted order. Returns (files to read, ignored files, errors
/// for paths that do not exist or cannot be listed).
pub fn collect_paths(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>, Vec<InputError>) {
    let mut files = Vec::new();
    let mut ignored = Vec::new();
    let mut errors = Vec::new();
    // Canonical paths already walked or taken: symlink loops and repeated
    // arguments are read once.
    let mut seen = std::collections::BTreeSet::new();
    fn walk(
        dir: &Path,
        seen: &mut std::collections::BTreeSet<PathBuf>,
        files: &mut Vec<PathBuf>,
        ignored: &mut Vec<PathBuf>,
        errors: &mut Vec<InputError>,
    ) {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                errors.push(path_error(dir, &format!("cannot list directory: {e}")));
                return;
            }
        };
        let mut children: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        children.sort();
        for child in children {
            let canonical = match std::fs::canonicalize(&child) {
                Ok(c) => c,
                // A dump's name that leads nowhere is a file the user meant
                // to load: said, not counted among the files that are no dump.
                Err(e) if is_dump_name(&child) => {
                    errors.push(path_error(&child, &format!("cannot be read: {e} (a symlink that leads nowhere?)")));
                    continue;
                }
                Err(_) => {
                    ignored.push(child);
                    continue;
                }
            };
            if !seen.insert(canonical.clone()) {
                continue;
            }
            match std::fs::metadata(&canonical) {
                Ok(m) if m.is_dir() => walk(&child, seen, files, ignored, errors),
                Ok(m) if m.is_file() && (is_dump_name(&child) || is_top_file(&child)) => files.push(child),
                // FIFOs, sockets and devices would block or never end.
                Ok(_) if is_dump_name(&child) => errors.push(path_error(
                    &child,
                    "not a regular file (a FIFO, socket or device would never end): not read",
                )),
                _ => ignored.push(child),
            }
        }
    }
    for p in paths {
        let canonical = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                if seen.insert(canonical) {
                    walk(p, &mut seen, &mut files, &mut ignored, &mut errors);
                }
            }
            Ok(m) if m.is_file() => {
                if seen.insert(canonical) {
                    files.push(p.clone());
                }
            }
            Ok(_) => errors.push(path_error(p, "not a regular file or directory (a FIFO or device would never end)")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                errors.push(path_error(p, "no such file or directory"))
            }
            Err(e) => errors.push(path_error(p, &format!("cannot read: {e}"))),
        }
    }
    (files, ignored, errors)
}

/// The given paths that do not exist (a dangling symlink included), in the
/// order given: `kdrift ingest file` checks them before it opens the store,
/// so that a mistyped path neither creates a store nor records a run.
pub fn missing_paths(paths: &[PathBuf]) -> Vec<&Path> {
    paths
        .iter()
        .filter(|p| matches!(std::fs::metadata(p), Err(e) if e.kind() == std::io::ErrorKind::NotFound))
        .map(PathBuf::as_path)
        .collect()
}

/// The given directories in which no dump file was found ([`DUMP_EXTENSIONS`],
/// walked as `collect_paths` walks them), with the number of other files
/// they hold: `kdrift ingest file DIR` on an empty directory says so instead
/// of loading nothing silently.
pub fn directories_without_dumps(paths: &[PathBuf]) -> Vec<(&Path, usize)> {
    paths
        .iter()
        .filter(|p| p.is_dir())
        .filter_map(|p| {
            let (files, ignored, _) = collect_paths(std::slice::from_ref(p));
            files.is_empty().then_some((p.as_path(), ignored.len()))
        })
        .collect()
}

/// The given files that are neither JSON, NDJSON nor YAML, each with the
/// message refusing it: an empty file (only blanks, whatever its name:
/// `EMPTY_FILE`), a file named `.json`/`.ndjson`/`.jsonl` whose content
/// opens no JSON document (a `kubectl get` table saved as `pods.json`:
/// `crate::parse::not_json_for_its_name`), and a file named explicitly whose name has no dump
/// ending ([`DUMP_EXTENSIONS`], also `.gz`) and whose first bytes are none
/// of them (a TSV, a `kubectl get` table, `kubectl describe` output; see
/// `crate::parse::looks_like_a_dump`), and Docker json-file log records
/// under any name (`crate::parse::is_docker_json_log`). `kdrift ingest file` checks them
/// before it opens the store: when nothing else is given, no store is
/// created and no run recorded. Directories and unreadable paths are not
/// judged here.
pub fn refused_files(paths: &[PathBuf]) -> Vec<InputError> {
    paths
        .iter()
        .filter(|p| p.is_file())
        .filter_map(|p| {
            let head = head_of(p)?;
            let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
            // Blank as far as the head goes, and the head is the whole file
            // (70,000 spaces before a List are no empty file: break-it).
            if text.iter().all(u8::is_ascii_whitespace) && head.len() < HEAD_BYTES {
                // Whatever its name: nothing in it (a failed `kubectl get … > file`).
                return Some(path_error(p, EMPTY_FILE));
            }
            // Whatever its name (`ID-json.log`, renamed `.ndjson`): a container's log, no object.
            if crate::parse::is_docker_json_log(text) {
                return Some(path_error(p, &crate::parse::docker_json_log_message()));
            }
            if let Some(e) = crate::parse::not_json_for_its_name(&p.display().to_string(), &head) {
                // Named JSON, holding a table or YAML: refused as the run would report it.
                return Some(e);
            }
            (!is_dump_name(p) && !looks_like_a_dump(&head) && !is_top_head(&head))
                .then(|| path_error(p, &not_a_dump_message(&head)))
        })
        .collect()
}

/// Whether `path`, a file without a dump's name ([`DUMP_EXTENSIONS`]: a
/// `.txt`, no ending), is a saved `kubectl top nodes` / `kubectl top pods -A`
/// table ([`crate::top::top_table`] on its first non-blank line).
fn is_top_file(path: &Path) -> bool {
    !is_dump_name(path) && head_of(path).is_some_and(|h| is_top_head(&h))
}

/// The first 64 KiB of a file (decompressed when it is gzip), enough for
/// [`looks_like_a_dump`]; `None` when it cannot be read (reported later).
/// How much of a file [`refused_files`] reads to judge it, bytes (decompressed).
const HEAD_BYTES: usize = 64 * 1024;

fn head_of(path: &Path) -> Option<Vec<u8>> {
    const HEAD: u64 = HEAD_BYTES as u64;
    let mut raw = Vec::new();
    std::fs::File::open(path).ok()?.take(HEAD).read_to_end(&mut raw).ok()?;
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return Some(raw);
    }
    let mut out = Vec::new();
    let file = std::fs::File::open(path).ok()?;
    // A damaged stream still gives what decompressed before the damage; one
    // that gives nothing is not judged here (the run names the damage, not
    // an empty file).
    let damaged = flate2::read::MultiGzDecoder::new(file).take(HEAD).read_to_end(&mut out).is_err();
    (!(damaged && out.is_empty())).then_some(out)
}

/// `path` made absolute for the run's and the observations' `location`
/// (later reports name it unambiguously, whatever the directory they run
/// in): a directory canonicalized; a file's directory canonicalized (`.`,
/// `..` and symlinked directories resolved) with the file's own name kept,
/// since its ending says how it is read. A path that cannot be resolved is
/// kept as given (it is reported as it was typed).
pub fn absolute_location(path: &Path) -> PathBuf {
    let given = || path.to_path_buf();
    if path.is_dir() {
        return std::fs::canonicalize(path).unwrap_or_else(|_| given());
    }
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
            std::fs::canonicalize(dir).map(|d| d.join(name)).unwrap_or_else(|_| given())
        }
        _ => std::fs::canonicalize(path).unwrap_or_else(|_| given()),
    }
}

fn path_error(path: &Path, message: &str) -> InputError {
    InputError {
        origin: Origin { location: path.display().to_string(), line: None, item: None },
        column: None,
        message: message.to_string(),
    }
}

/// The bytes of `path`, decompressed when it is gzip (up to `cap`),
/// stopping the decompression as soon as `interrupt` is triggered (looked
/// at on every read of the decoder, a few KiB each). A gzip stream that is
/// damaged, or expands past `cap`, gives what decompressed before, with the
/// error saying so (its complete records load); bytes between two gzip
/// members that are no member are skipped with an error naming them and
/// the line they come before ([`crate::gzip::Members`]), the later members
/// read.
///
/// # Errors
/// An [`InputError`] naming the file when it cannot be read, when its gzip
/// stream gives nothing before the damage or the cap, or saying reading
/// stopped when the interrupt came during the decompression.
pub fn read_maybe_gzip_until(
    path: &Path,
    cap: DecompressedCap,
    interrupt: &Interrupt,
) -> Result<(Vec<u8>, Vec<InputError>), InputError> {
    let bytes = std::fs::read(path).map_err(|e| path_error(path, &format!("cannot read: {e}")))?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::with_capacity(bytes.len() * 4);
        let decoder = UntilInterrupt { inner: Members::new(&bytes[..]), interrupt };
        let mut reader = Capped::new(decoder, cap, bytes.len() as u64);
        // Garbage between gzip members: skipped and said, the later members read.
        let mut damage = Vec::new();
        let (mut lines, mut counted) = (1u64, 0usize);
        let mut read = reader.read_to_end(&mut out);
        while let Some(skipped) = read.as_ref().err().and_then(skipped_in) {
            lines += out[counted..].iter().filter(|b| **b == b'\n').count() as u64;
            counted = out.len();
            let kept = if skipped.trailing { "before it are kept" } else { "before and after are kept" };
            let mut error = path_error(path, &format!("{skipped}; the records {kept}"));
            error.origin.line = Some(lines);
            damage.push(error);
            read = reader.read_to_end(&mut out);
        }
        if let Err(e) = read {
            if interrupt.is_triggered() {
                return Err(path_error(
                    path,
                    &format!(
                        "reading stopped on an interrupt (SIGINT or SIGTERM) after {} decompressed bytes: the file \
                         is not read",
                        out.len()
                    ),
                ));
            }
            if e.kind() == std::io::ErrorKind::FileTooLarge && !out.is_empty() {
                // What decompressed up to the cap is read, as the NDJSON
                // stream keeps the lines before it: the complete items of a
                // List before the cap load (break-it 41 G6: none did), the
                // one the cap cuts is reported cut; a real dump over the cap
                // is read whole once the cap is raised.
                damage.push(path_error(path, &e.to_string()));
                return Ok((out, damage));
            }
            if e.kind() == std::io::ErrorKind::FileTooLarge {
                return Err(path_error(path, &e.to_string()));
            }
            let err = path_error(
                path,
                &format!("gzip data is corrupt or truncated after {} decompressed bytes: {e}", out.len()),
            );
            if out.is_empty() {
                return Err(err);
            }
            // Keep what decompressed: the complete records before the damage load.
            damage.push(err);
            return Ok((out, damage));
        }
        return Ok((out, damage));
    }
    Ok((bytes, Vec::new()))
}

/// A reader that fails once `interrupt` is triggered.
struct UntilInterrupt<'a, R> {
    inner: R,
    interrupt: &'a Interrupt,
}

impl<R: Read> Read for UntilInterrupt<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.interrupt.is_triggered() {
            return Err(std::io::Error::other("interrupted"));
        }
        self.inner.read(buf)
    }
}

/// Ingests dump files and directories into `store` as one run (source kind
/// `file`). Locations (the run's, each file's) are stored absolute
/// (`absolute_location`).
///
/// # Errors
/// Only [`StoreError`]s abort; input problems are in the report.
pub fn ingest_files(store: &Store, paths: &[PathBuf], progress: &mut dyn Progress) -> Result<IngestReport, StoreError> {
    ingest_files_until(store, paths, progress, &Interrupt::new())
}

/// [`ingest_files`], stopping early when `interrupt` is triggered: checked
/// before each file and between chunks of records, it closes the run as
/// `failed` with [`INTERRUPTED_RUN_MESSAGE`] in `ingest_errors` and returns
/// a report with `interrupted` set. Batches committed before (large NDJSON
/// files commit every [`crate::ndjson_stream::BATCH`] records) stay; what
/// was staged since is dropped. An interrupt during the final commit does
/// not stop it (the data is in): the run completes with its usual status
/// and the report has `interrupted_during_commit` set.
///
/// # Errors
/// Only [`StoreError`]s abort; input problems are in the report.
pub fn ingest_files_until(
    store: &Store,
    paths: &[PathBuf],
    progress: &mut dyn Progress,
    interrupt: &Interrupt,
) -> Result<IngestReport, StoreError> {
    ingest_files_with(store, paths, &FileLimits::default(), progress, interrupt)
}

/// [`ingest_files_at`] with the `kubectl top` tables' samples at each
/// file's modification time.
///
/// # Errors
/// Only [`StoreError`]s abort; input problems are in the report.
pub fn ingest_files_with(
    store: &Store,
    paths: &[PathBuf],
    limits: &FileLimits,
    progress: &mut dyn Progress,
    interrupt: &Interrupt,
) -> Result<IngestReport, StoreError> {
    ingest_files_at(store, paths, limits, None, progress, interrupt)
}

/// [`ingest_files_until`] with `limits` instead of the defaults (the CLI's
/// `--max-decompressed`, `--max-yaml-depth`, `--max-batch-bytes`): a file past a limit is an input error naming the
/// limit and its flag; the other files load. The saved `kubectl top`
/// tables among the files (named, or without a dump's name in a directory)
/// are stored first, each as a run of usage samples at `top_at` (the CLI's
/// `--at`), else at the file's modification time ([`IngestReport::usage`]);
/// with nothing else given no object run is recorded, and the report's run
/// is the last table's.
///
/// # Errors
/// Only [`StoreError`]s abort; input problems are in the report.
pub fn ingest_files_at(
    store: &Store,
    paths: &[PathBuf],
    limits: &FileLimits,
    top_at: Option<chrono::DateTime<chrono::Utc>>,
    progress: &mut dyn Progress,
    interrupt: &Interrupt,
) -> Result<IngestReport, StoreError> {
    ingest_files_named(store, paths, &[], limits, top_at, progress, interrupt)
}

/// [`ingest_files_at`] where some files are known by another name than
/// their path: `names` pairs a file (as given) with the location stored and
/// reported for it, in its run, its records' origins and its input errors
/// (`<stdin>` for the spooled standard input of `kdrift ingest file -`,
/// [`crate::stdin::STDIN_LOCATION`]).
///
/// # Errors
/// Only [`StoreError`]s abort; input problems are in the report.
pub fn ingest_files_named(
    store: &Store,
    paths: &[PathBuf],
    names: &[(PathBuf, String)],
    limits: &FileLimits,
    top_at: Option<chrono::DateTime<chrono::Utc>>,
    progress: &mut dyn Progress,
    interrupt: &Interrupt,
) -> Result<IngestReport, StoreError> {
    // Stored absolute: `kdrift ingest file dumps/x.json` names the same file
    // in every later report, wherever it runs.
    let paths: Vec<PathBuf> = paths.iter().map(|p| absolute_location(p)).collect();
    let paths = paths.as_slice();
    let names: Vec<(PathBuf, String)> = names.iter().map(|(p, n)| (absolute_location(p), n.clone())).collect();
    let names = names.as_slice();
    let (files, ignored, path_errors) = collect_paths(paths);
    let (tops, files): (Vec<PathBuf>, Vec<PathBuf>) = files.into_iter().partition(|f| is_top_file(f));
    let mut usage = Vec::new();
    for top in &tops {
        if interrupt.is_triggered() {
            break;
        }
        let location = location_of(top, names);
        usage.push(ingest_top_file_named(store, top, &location, top_at, limits.decompressed, interrupt)?);
    }
    if !tops.is_empty() && files.is_empty() && path_errors.is_empty() {
        return Ok(usage_only(usage, tops.len(), &ignored));
    }
    let mut report = ingest_dumps(store, paths, names, files, ignored, path_errors, limits, progress, interrupt)?;
    report.usage = usage;
    Ok(report)
}

/// The location stored and reported for `file`: its name in `names`
/// ([`ingest_files_named`]), else its path.
fn location_of(file: &Path, names: &[(PathBuf, String)]) -> String {
    names.iter().find(|(p, _)| p == file).map_or_else(|| file.display().to_string(), |(_, n)| n.clone())
}

/// The report of a run given only `kubectl top` tables, `given` of them
/// (`usage` holds fewer when an interrupt stopped it): the last table's run.
fn usage_only(usage: Vec<TopFileSummary>, given: usize, ignored: &[PathBuf]) -> IngestReport {
    let errors = usage.iter().any(|u| !u.errors.is_empty());
    let samples: u64 = usage.iter().map(|u| u.samples).sum();
    let interrupted = usage.len() < given;
    let status = match (errors, samples) {
        _ if interrupted => RunStatus::Failed,
        (false, _) => RunStatus::Ok,
        (true, 0) => RunStatus::Failed,
        (true, _) => RunStatus::Partial,
    };
    IngestReport {
        run_id: usage.last().map_or(0, |u| u.run_id),
        status,
        files: Vec::new(),
        ignored: ignored.iter().map(|p| p.display().to_string()).collect(),
        counts: RunCounts::default(),
        interrupted,
        interrupted_during_commit: false,
        warnings: Vec::new(),
        usage,
    }
}

/// The dump files' run ([`ingest_files_at`] past the `kubectl top` tables).
#[allow(clippy::too_many_arguments)]
fn ingest_dumps(
    store: &Store,
    paths: &[PathBuf],
    names: &[(PathBuf, String)],
    files: Vec<PathBuf>,
    ignored: Vec<PathBuf>,
    path_errors: Vec<InputError>,
    limits: &FileLimits,
    progress: &mut dyn Progress,
    interrupt: &Interrupt,
) -> Result<IngestReport, StoreError> {
    let location = paths.iter().map(|p| location_of(p, names)).collect::<Vec<_>>().join(" ");
    let total_bytes = files.iter().filter_map(|f| f.metadata().ok()).map(|m| m.len()).sum();
    progress.start(files.len(), total_bytes);
    let mut writer = RunWriter::begin(store, "file", &location)?;
    // Every value read on this thread (and on the readers' threads, which
    // take these bounds along) within the parsed-size cap, its parse
    // stopped by the interrupt.
    let _bounds = crate::parse::enter_bounds(crate::parse::Bounds {
        parsed: usize::try_from(limits.parsed_bytes).unwrap_or(usize::MAX),
        interrupt: Some(interrupt.clone()),
    });
    let mut summaries = Vec::new();
    for err in path_errors {
        let location = err.origin.location.clone();
        summaries.push(FileSummary { location, errors: vec![err], ..FileSummary::default() });
    }
    for file in &files {
        // The errors of the files before go with the next commit (the
        // streamed file's batches, or the final one).
        note_new_errors(&mut writer, &summaries);
        if interrupt.is_triggered() {
            break;
        }
        let location = location_of(file, names);
        progress.reading(&location);
        let bytes_len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let mut streamed = FileSummary { location: location.clone(), ..FileSummary::default() };
        let errors_before = summaries.iter().map(|s| s.errors.len() as u64).sum();
        // NDJSON streamed line by line, a large JSON List item by item
        // (`crate::json_stream`), large YAML document by document and item
        // by item (`crate::yaml_stream`), anything else read whole.
        let streams = (!is_yaml_name(&location)
            && crate::ndjson_stream::stream_file(&mut writer, file, &mut streamed, errors_before, limits, interrupt)?)
            || crate::json_stream::stream_file(&mut writer, file, &mut streamed, errors_before, limits, interrupt)?
            || crate::yaml_stream::stream_file(&mut writer, file, &mut streamed, errors_before, limits, interrupt)?;
        let summary = if streams { streamed } else { read_whole(&mut writer, file, location, limits, interrupt)? };
        let mut summary = summary;
        // Errors about the file as a whole (unreadable, gzip damage) name
        // its path: named otherwise (`<stdin>`), they say that name.
        let path = file.display().to_string();
        for e in summary.errors.iter_mut().filter(|e| e.origin.location == path) {
            e.origin.location.clone_from(&summary.location);
        }
        summary.close_errors();
        tracing::info!(
            file = %summary.location,
            format = summary.format.map_or("unreadable", Format::as_str),
            records = summary.records,
            errors = summary.error_total(),
            "read"
        );
        progress.file_done(&summary, bytes_len);
        summaries.push(summary);
    }
    let ignored = ignored.iter().map(|p| p.display().to_string()).collect();
    if interrupt.is_triggered() {
        return abandon_interrupted(writer, &location, summaries, ignored);
    }
    let mut report = finish(store, writer, summaries, ignored, progress)?;
    // Triggered since the last check: during the final commit, which went on.
    report.interrupted_during_commit = interrupt.is_triggered();
    if report.interrupted_during_commit {
        tracing::info!(run_id = report.run_id, "interrupted during the final commit: the run completed");
    }
    Ok(report)
}

/// Closes an interrupted run as `failed`, with [`INTERRUPTED_RUN_MESSAGE`]
/// in `ingest_errors`: what was staged since the last batch commit is
/// dropped, the batches committed before stay.
fn abandon_interrupted(
    mut writer: RunWriter<'_>,
    location: &str,
    files: Vec<FileSummary>,
    ignored: Vec<String>,
) -> Result<IngestReport, StoreError> {
    let (run_id, counts) = (writer.run_id(), writer.committed());
    tracing::info!(run_id, committed = counts.records, "interrupted: closing the run as failed");
    // The input errors met are facts about the files, kept with the run
    // even though the records read since the last batch commit are dropped.
    note_new_errors(&mut writer, &files);
    writer.note_error(location, None, None, None, INTERRUPTED_RUN_MESSAGE);
    let errors = writer.errors_noted();
    let rejected = writer.rejected().to_vec();
    writer.abandon(errors)?;
    let mut files = files;
    show_rejected(&mut files, &rejected);
    in_line_order(&mut files);
    Ok(IngestReport {
        run_id,
        status: RunStatus::Failed,
        files,
        ignored,
        counts,
        interrupted: true,
        interrupted_during_commit: false,
        warnings: Vec::new(),
        usage: Vec::new(),
    })
}

/// Sorts each file's input errors by line (stably; errors without a line,
/// about the whole file, first), once every one is noted: a chunk's parse
/// errors are found before its records' model problems. Only for the
/// report: [`note_new_errors`] counts on errors only growing at the end.
fn in_line_order(summaries: &mut [FileSummary]) {
    for s in summaries {
        // The one saying how many more were counted stays last.
        let kept = s.errors.len() - usize::from(s.more_said);
        s.errors[..kept].sort_by_key(|e| e.origin.line.unwrap_or(0));
    }
}

/// Gives `writer` the input errors of `summaries` (in order) past those it
/// was given already ([`RunWriter::errors_noted`]): it writes them with its
/// next commit. Every error is given once, in file order, because
/// summaries only grow at their end.
pub(crate) fn note_new_errors(writer: &mut RunWriter<'_>, summaries: &[FileSummary]) {
    let given = writer.errors_noted() as usize;
    let new: Vec<&InputError> = summaries.iter().flat_map(|s| &s.errors).skip(given).collect();
    for e in new {
        note_error(writer, e);
    }
}

/// Gives `writer` one input error ([`RunWriter::note_error`]).
pub(crate) fn note_error(writer: &mut RunWriter<'_>, e: &InputError) {
    writer.note_error(&e.origin.location, e.origin.line, e.column, e.origin.item, &e.message);
}

/// Reads a (non-NDJSON) file whole and stages its records.
fn read_whole(
    writer: &mut RunWriter<'_>,
    file: &Path,
    location: String,
    limits: &FileLimits,
    interrupt: &Interrupt,
) -> Result<FileSummary, StoreError> {
    Ok(match read_maybe_gzip_until(file, limits.decompressed, interrupt) {
        Err(e) => FileSummary { location, errors: vec![e], ..FileSummary::default() },
        Ok((bytes, _)) if !is_dump_name(file) && !looks_like_a_dump(&bytes) => {
            // A named file of another kind (a table, a TSV): read as YAML it
            // would give errors about YAML that say nothing useful.
            let error = path_error(file, &not_a_dump_message(&bytes));
            FileSummary { location, errors: vec![error], ..FileSummary::default() }
        }
        Ok((bytes, damage)) => {
            // Stops within a few MB on an interrupt (the run is then closed as failed).
            let parsed = parse_bytes_with(&location, &bytes, Naming::of(&location), limits.yaml_depth, interrupt);
            let mut errors: Vec<InputError> = damage.into_iter().collect();
            errors.extend(parsed.errors);
            let mut summary = FileSummary {
                location,
                format: parsed.format,
                skipped: parsed.skipped,
                errors,
                errors_not_kept: parsed.errors_not_kept,
                ..FileSummary::default()
            };
            stage_all(writer, parsed.records, &mut summary, limits.batch_bytes, interrupt)?;
            summary
        }
    })
}

/// Ingests records produced in memory (the demo scenario, tests) as one run.
///
/// # Errors
/// Only [`StoreError`]s abort; records that are not objects are reported.
pub fn ingest_records(
    store: &Store,
    source_kind: &str,
    location: &str,
    records: impl IntoIterator<Item = Record>,
) -> Result<IngestReport, StoreError> {
    let mut writer = RunWriter::begin(store, source_kind, location)?;
    let mut summary = FileSummary { location: location.to_string(), ..FileSummary::default() };
    stage_all(&mut writer, records, &mut summary, crate::ndjson_stream::BATCH_BYTES, &Interrupt::new())?;
    finish(store, writer, vec![summary], Vec::new(), &mut NoProgress)
}

/// Stages `records`, a chunk at a time, until they end or `interrupt` is
/// triggered, committing a batch whenever `batch_bytes` bytes of objects
/// (at most the store's [`RunWriter::max_batch_bytes`]) are staged: a JSON
/// List of big objects is committed in batches DuckDB can hold under its
/// memory limit, not in one (issue 39). The file's input errors go with
/// the run's next commit after it is read ([`note_new_errors`]).
fn stage_all(
    writer: &mut RunWriter<'_>,
    records: impl IntoIterator<Item = Record>,
    summary: &mut FileSummary,
    batch_bytes: u64,
    interrupt: &Interrupt,
) -> Result<(), StoreError> {
    let batch_bytes = batch_bytes.min(writer.max_batch_bytes());
    // Prepared on every core, a chunk at a time (memory stays bounded).
    let mut records = records.into_iter().peekable();
    while records.peek().is_some() && !interrupt.is_triggered() {
        let chunk: Vec<Record> = records.by_ref().take(crate::ndjson_stream::CHUNK).collect();
        for prepared in prepare_all(chunk, writer.started_at()) {
            stage_prepared(writer, prepared, summary)?;
            if writer.pending_bytes() >= batch_bytes {
                let errors = writer.errors_noted();
                writer.commit_batch(errors)?;
            }
        }
    }
    Ok(())
}

/// Stages one prepared record and counts it in `summary`; a record that is
/// not a storable object, or a Pod/Node the cluster model cannot read
/// ([`Prepared::problem`]), becomes an input error in `summary` (the Pod/Node
/// version is still stored: it is what the cluster said, and such a value is
/// reported at ingest, with the file and item, rather than skipped silently
/// by every later analysis).
///
/// # Errors
/// [`StoreError`] when the store fails.
pub(crate) fn stage_prepared(
    writer: &mut RunWriter<'_>,
    prepared: Prepared,
    summary: &mut FileSummary,
) -> Result<(), StoreError> {
    let Prepared { origin, is_event, problem, row } = prepared;
    if let Some(problem) = problem {
        summary.add_error(InputError {
            origin: origin.clone(),
            column: None,
            message: format!("{problem}; the version is stored, but analyses cannot use it"),
        });
    }
    match row {
        Ok(row) => {
            writer.append(&row, &origin)?;
            summary.records += 1;
            if is_event {
                summary.events += 1;
            } else {
                summary.objects += 1;
            }
        }
        Err(e) => summary.add_error(InputError { origin, column: None, message: e.to_string() }),
    }
    Ok(())
}

fn finish(
    store: &Store,
    mut writer: RunWriter<'_>,
    mut summaries: Vec<FileSummary>,
    ignored: Vec<String>,
    progress: &mut dyn Progress,
) -> Result<IngestReport, StoreError> {
    for s in &summaries {
        writer.record_file(
            &s.location,
            s.format.map_or("unreadable", Format::as_str),
            s.records,
            s.events,
            s.objects,
            s.skipped,
            s.error_total(),
        );
    }
    note_new_errors(&mut writer, &summaries);
    let errors: u64 = summaries.iter().map(FileSummary::error_total).sum();
    let read: u64 = summaries.iter().map(|s| s.records).sum();
    let status = match (errors, read) {
        (0, _) => RunStatus::Ok,
        (_, 0) => RunStatus::Failed,
        _ => RunStatus::Partial,
    };
    progress.committing();
    tracing::info!(files = summaries.len(), "committing: deduplicating and deriving events, pods and nodes");
    let run_id = writer.run_id();
    let Committed { counts, per_location, status, rejected } = writer.commit(status, errors)?;
    show_rejected(&mut summaries, &rejected);
    for s in &mut summaries {
        s.added = per_location.iter().find(|(l, _)| *l == s.location).map_or(0, |(_, n)| *n);
        s.duplicates = s.records.saturating_sub(s.added);
    }
    in_line_order(&mut summaries);
    let mut warnings: Vec<String> = store
        .run_node_uids(run_id)?
        .into_iter()
        .map(|n| {
            let (name, uids, locations) = (n.name, n.uids, n.locations.join(", "));
            format!(
                "node {name} was stored with {uids} different uids (from {locations}): dumps of two clusters given \
                 together become one cluster in the store (keep one store per cluster), unless the node was deleted \
                 and re-created under its name between the dumps"
            )
        })
        .collect();
    warnings.extend(implausible_times_warning(store, run_id)?);
    Ok(IngestReport {
        run_id,
        status,
        files: summaries,
        ignored,
        counts,
        interrupted: false,
        interrupted_during_commit: false,
        warnings,
        usage: Vec::new(),
    })
}

/// Shows in `summaries` the objects the store left out of the run, too big
/// for DuckDB under its memory limit ([`Rejected`]: already in
/// `ingest_errors` and in the run's counts): each is an input error of its
/// file, no longer one of its records. Only for the report, once every
/// error is noted ([`note_new_errors`] counts on errors only growing at
/// their end).
pub(crate) fn show_rejected(summaries: &mut [FileSummary], rejected: &[Rejected]) {
    for r in rejected {
        let Some(s) = summaries.iter_mut().find(|s| s.location == r.origin.location) else {
            continue;
        };
        s.records = s.records.saturating_sub(1);
        if r.is_event() {
            s.events = s.events.saturating_sub(1);
        } else {
            s.objects = s.objects.saturating_sub(1);
        }
        s.add_late_error(InputError { origin: r.origin.clone(), column: None, message: r.message.clone() });
    }
}

/// The warning about the versions run `run_id` stored with a time before
/// 1970 or more than a day from now ([`crate::store::plausible_range`]):
/// kept, but never the store's "now" or a report's edge. `None` when there
/// are none.
fn implausible_times_warning(store: &Store, run_id: i64) -> Result<Option<String>, StoreError> {
    let (lower, upper) = crate::store::plausible_range(chrono::Utc::now());
    let rows = store.query_map(
        &sql::RUN_IMPLAUSIBLE_TIMES,
        kdrift_store::params![run_id, lower.timestamp_micros(), upper.timestamp_micros()],
        |r| {
            let (n, kind, namespace, name, at): (i64, String, String, String, chrono::NaiveDateTime) =
                (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?);
            Ok((n, kind, namespace, name, at))
        },
    )?;
    Ok(rows.into_iter().next().map(|(n, kind, namespace, name, at)| {
        let object = if namespace.is_empty() { format!("{kind} {name}") } else { format!("{kind} {namespace}/{name}") };
        format!(
            "{n} stored object {} {} a time before 1970 or more than a day from now (e.g. {object} at {}Z): kept as \
             the input says, but no analysis takes such a time as the store's latest instant or a report's range",
            if n == 1 { "version" } else { "versions" },
            if n == 1 { "has" } else { "have" },
            at.format("%Y-%m-%dT%H:%M:%S"),
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Triggers the interrupt when the final commit starts.
    struct InterruptAtCommit(Interrupt);
    impl Progress for InterruptAtCommit {
        fn committing(&mut self) {
            self.0.trigger();
        }
    }

    #[test]
    fn an_interrupt_during_the_final_commit_completes_the_run_and_says_so() {
        let dir = tempfile::tempdir().expect("tmp");
        let file = dir.path().join("events.json");
        let event = serde_json::json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "p.1", "namespace": "ns", "uid": "u-1"},
            "involvedObject": {"kind": "Pod", "namespace": "ns", "name": "p"},
            "reason": "Pulled", "type": "Normal", "count": 1, "message": "pulled",
            "firstTimestamp": "2026-11-27T00:00:00Z", "lastTimestamp": "2026-11-27T00:00:00Z"});
        std::fs::write(&file, serde_json::json!({"kind": "List", "items": [event]}).to_string()).expect("write");
        let store = Store::open(&dir.path().join("k.duckdb")).expect("store");
        let interrupt = Interrupt::new();
        let mut progress = InterruptAtCommit(interrupt.clone());
        let report = ingest_files_until(&store, &[file], &mut progress, &interrupt).expect("ingest");
        assert!(interrupt.is_triggered());
        assert_eq!(
            (report.run_id, report.status, report.interrupted, report.interrupted_during_commit),
            (1, RunStatus::Ok, false, true)
        );
        assert_eq!((report.counts.records, report.counts.added), (1, 1));
        assert_eq!(store.counts().expect("counts").observations, 1, "the run's data is kept");

        // Not interrupted: the flag stays down.
        let report = ingest_files(&store, &[dir.path().join("events.json")], &mut NoProgress).expect("ingest");
        assert_eq!((report.status, report.interrupted_during_commit), (RunStatus::Ok, false));
    }
}
