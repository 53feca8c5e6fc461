//! `kdrift ingest file DIR`'s summary without `-v`: one row per directory
//! read (its files, records, errors) instead of one per file; files named
//! on the command line keep their own rows.

use std::collections::BTreeMap;
use std::path::Path;

use kdrift_ingest::FileSummary;
use tabled::Tabled;

/// One directory's row (or a named file's).
#[derive(Tabled, Default)]
pub struct DirRow {
    #[tabled(rename = "DIRECTORY OR FILE")]
    place: String,
    #[tabled(rename = "FILES")]
    files: usize,
    #[tabled(rename = "EVENTS")]
    events: u64,
    #[tabled(rename = "OBJECTS")]
    objects: u64,
    #[tabled(rename = "NEW VERSIONS")]
    added: u64,
    #[tabled(rename = "ALREADY STORED")]
    duplicates: u64,
    #[tabled(rename = "SKIPPED")]
    skipped: u64,
    #[tabled(rename = "ERRORS")]
    errors: u64,
}

/// The rows: the files under one of `dirs` (absolute, as the report's
/// locations) summed per directory holding them, `DIR/` (in the order
/// first read); every other file as its own row.
pub fn rows(files: &[FileSummary], dirs: &[String]) -> Vec<DirRow> {
    let mut order: Vec<String> = Vec::new();
    let mut by_place: BTreeMap<String, DirRow> = BTreeMap::new();
    for f in files {
        let under = dirs.iter().any(|d| Path::new(&f.location).starts_with(d));
        let place = match Path::new(&f.location).parent().filter(|_| under) {
            Some(dir) => format!("{}/", dir.display()),
            None => f.location.clone(),
        };
        let row = by_place.entry(place.clone()).or_insert_with(|| {
            order.push(place.clone());
            DirRow { place, ..DirRow::default() }
        });
        row.files += 1;
        row.events += f.events;
        row.objects += f.objects;
        row.added += f.added;
        row.duplicates += f.duplicates;
        row.skipped += f.skipped;
        row.errors += f.error_total();
    }
    order.into_iter().filter_map(|p| by_place.remove(&p)).collect()
}

#[cfg(test)]
mod tests {
    use kdrift_ingest::FileSummary;

    fn file(location: &str, events: u64, added: u64) -> FileSummary {
        let mut f = FileSummary::default();
        (f.location, f.events, f.added, f.records) = (location.into(), events, added, events);
        f
    }

    #[test]
    fn files_under_a_given_directory_sum_per_directory_and_named_files_stay_rows() {
        let files = [
            file("/d/dump/nodes.json", 0, 0),
            file("/d/dump/media/events.json", 5, 5),
            file("/d/dump/media/pods.json", 0, 0),
            file("/d/extra.json", 2, 1),
            file("/d/dump/web/events.json", 3, 2),
        ];
        let rows = super::rows(&files, &["/d/dump".to_string()]);
        let got: Vec<(&str, usize, u64, u64)> =
            rows.iter().map(|r| (r.place.as_str(), r.files, r.events, r.added)).collect();
        assert_eq!(
            got,
            [("/d/dump/", 1, 0, 0), ("/d/dump/media/", 2, 5, 5), ("/d/extra.json", 1, 2, 1), ("/d/dump/web/", 1, 3, 2)]
        );
    }
}
