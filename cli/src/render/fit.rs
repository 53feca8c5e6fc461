//! Tables that fit the terminal: the width every table is cut to, from
//! `COLUMNS` or the terminal stdout writes to; the widest columns are cut
//! first, each cut cell ending with `…` ([`super::plain`]). Output to a
//! pipe or file is not cut unless `COLUMNS` is set; `-o wide` (when the
//! build has it) and `-o json` are never cut.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The narrowest width tables are cut to, characters: below it a table
/// is more readable wrapped by the terminal than cut to nothing.
pub const MIN_WIDTH: usize = 40;

/// The narrowest a column is cut to, characters (a pod name's namespace
/// and the start of its name).
pub const MIN_COLUMN: usize = 16;

/// The width tables are cut to, characters (0: not cut), set once by [`init`].
static WIDTH: AtomicUsize = AtomicUsize::new(0);

/// Sets the width tables are cut to for this run: `COLUMNS` when it is a
/// number, else the width of the terminal stdout is; none when `wide`
/// (`-o wide`) or stdout is no terminal and `COLUMNS` is not set.
pub fn init(wide: bool) {
    let columns = std::env::var("COLUMNS").ok();
    let terminal = || terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0));
    WIDTH.store(width(wide, columns.as_deref(), terminal), Ordering::Relaxed);
}

/// The width for `wide`, `COLUMNS` and the terminal's width (0: not cut).
fn width(wide: bool, columns: Option<&str>, terminal: impl FnOnce() -> Option<usize>) -> usize {
    if wide {
        return 0;
    }
    let given = columns.and_then(|c| c.trim().parse::<usize>().ok()).filter(|w| *w > 0);
    given.or_else(terminal).map_or(0, |w| w.max(MIN_WIDTH))
}

/// Which columns to cut, and to what width, for a table to lose `excess`
/// characters: the widest first, as far as needed but not below
/// [`MIN_COLUMN`], then the next widest (a table that cannot shrink enough
/// stays wider).
pub fn cuts(widths: &[usize], excess: usize) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..widths.len()).collect();
    order.sort_by_key(|i| (std::cmp::Reverse(widths[*i]), *i));
    let mut left = excess;
    let mut out = Vec::new();
    for i in order {
        if left == 0 {
            break;
        }
        let cut = left.min(widths[i].saturating_sub(MIN_COLUMN));
        if cut > 0 {
            out.push((i, widths[i] - cut));
            left -= cut;
        }
    }
    out
}

/// The width tables are cut to (0: not cut).
pub fn table_width() -> usize {
    WIDTH.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::width;

    #[test]
    fn the_widest_column_is_cut_first_then_the_next() {
        use super::cuts;
        assert_eq!(cuts(&[27, 6, 20, 62], 0), []);
        assert_eq!(cuts(&[27, 6, 20, 62], 10), [(3, 52)], "the message alone");
        assert_eq!(cuts(&[27, 6, 20, 62], 50), [(3, 16), (0, 23)], "the message to the floor, then the pod");
        assert_eq!(cuts(&[27, 6, 20, 62], 500), [(3, 16), (0, 16), (2, 16)], "never below the floor");
    }

    #[test]
    fn columns_then_the_terminal_decide_and_wide_never_cuts() {
        assert_eq!(width(false, Some("100"), || Some(80)), 100);
        assert_eq!(width(false, None, || Some(80)), 80);
        assert_eq!(width(false, Some("x"), || Some(80)), 80, "COLUMNS that is no number");
        assert_eq!(width(false, None, || None), 0, "a pipe without COLUMNS");
        assert_eq!(width(true, Some("100"), || Some(80)), 0, "-o wide");
        assert_eq!(width(false, Some("10"), || None), super::MIN_WIDTH);
    }
}
