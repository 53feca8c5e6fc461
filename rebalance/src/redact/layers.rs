//! Text re-spelled around a credential's characters, undone before
//! matching (break-it 34 H1): zero-width characters between them
//! (U+200B–U+200D, U+FEFF) dropped and fullwidth letters (U+FF01–U+FF5E,
//! `ＴＯＫ`) folded to ASCII ([`folded`]); characters split by one repeated
//! separator (`L.i.v.e.T.o.k`, `L i v e`) and base64 written in groups of
//! four separated by blanks (`TGl2 ZVRv a1E3`) joined ([`joined`]).

use super::Layer;

/// Fewest characters of a run split by a separator that [`joined`] reads
/// (the shortest end of a held value matched: `forms::MIN_END`).
const MIN_SPACED: usize = 8;

/// Fewest base64 groups of four that [`joined`] reads.
const MIN_GROUPS: usize = 3;

/// Ends one joined run and begins the next: never in a form (forms are UTF-8).
const BETWEEN: u8 = 0xff;

/// `hay` with zero-width characters dropped and fullwidth ASCII folded,
/// and the range of `hay` each byte comes from; `None` when it holds none.
pub(super) fn folded(hay: &[u8]) -> Option<Layer> {
    // Their UTF-8 begins with E2 or EF: most texts hold neither.
    if !hay.contains(&0xE2) && !hay.contains(&0xEF) {
        return None;
    }
    let text = std::str::from_utf8(hay).ok()?;
    let special = |c: char| matches!(c, '\u{200B}'..='\u{200D}' | '\u{FEFF}' | '\u{FF01}'..='\u{FF5E}');
    if !text.chars().any(special) {
        return None;
    }
    let (mut out, mut from) = (Vec::with_capacity(hay.len()), Vec::with_capacity(hay.len()));
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        match c {
            '\u{200B}'..='\u{200D}' | '\u{FEFF}' => {}
            '\u{FF01}'..='\u{FF5E}' => {
                out.push(u8::try_from(u32::from(c) - 0xFEE0).unwrap_or(b'?'));
                from.push((i, end));
            }
            _ => {
                out.extend_from_slice(&hay[i..end]);
                from.extend(std::iter::repeat_n((i, end), end - i));
            }
        }
    }
    Some((out, from))
}

/// The runs of `hay` split by a repeated separator or written in base64
/// groups, each joined (runs separated by [`BETWEEN`]), and the range of
/// `hay` each byte comes from; `None` when there is none.
pub(super) fn joined(hay: &[u8]) -> Option<Layer> {
    let (mut out, mut from) = (Vec::new(), Vec::new());
    let mut i = 0;
    // A run is 11+ bytes (three groups); the checks below read up to `i + 9`.
    while i + 10 < hay.len() {
        // Cheap checks first, on every byte: a separator every other byte,
        // or a blank after four.
        let sep = hay[i + 1];
        let spaced_here = sep == hay[i + 3] && sep == hay[i + 5] && (sep == b' ' || sep.is_ascii_punctuation());
        let grouped_here = hay[i + 4] == b' ' && hay[i + 9] == b' ';
        if !spaced_here && !grouped_here {
            i += 1;
            continue;
        }
        let found = if spaced_here { spaced(hay, i) } else { None };
        let Some(run) = found.or_else(|| if grouped_here { grouped(hay, i) } else { None }) else {
            i += 1;
            continue;
        };
        let mut end = i;
        for (s, e) in run {
            out.extend_from_slice(&hay[s..e]);
            from.extend(std::iter::repeat_n((s, e), e - s));
            end = e;
        }
        out.push(BETWEEN);
        from.push((end, end));
        i = end;
    }
    (!out.is_empty()).then_some((out, from))
}

/// The characters of the run at `i` split by one repeated separator
/// (`L.i.v.e`: any punctuation or a blank after every character), as
/// byte ranges, when it holds [`MIN_SPACED`]+ of them.
fn spaced(hay: &[u8], i: usize) -> Option<Vec<(usize, usize)>> {
    let sep = *hay.get(i + 1)?;
    if !hay[i].is_ascii_graphic() || !(sep.is_ascii_punctuation() || sep == b' ') {
        return None;
    }
    // Counted first: most candidates (`Back-off`) end at once.
    let mut count = 0;
    while hay.get(i + 2 * count).is_some_and(u8::is_ascii_graphic) {
        count += 1;
        if hay.get(i + 2 * count - 1) != Some(&sep) {
            break;
        }
    }
    (count >= MIN_SPACED).then(|| (0..count).map(|k| (i + 2 * k, i + 2 * k + 1)).collect())
}

/// The base64 groups of the run at `i` (`TGl2 ZVRv a1E3`: four
/// characters, one blank between, the last 1–4), as byte ranges, when
/// [`MIN_GROUPS`]+.
fn grouped(hay: &[u8], i: usize) -> Option<Vec<(usize, usize)>> {
    let b64 = |b: &u8| b.is_ascii_alphanumeric() || b"+/=-_".contains(b);
    if i > 0 && b64(&hay[i - 1]) {
        return None;
    }
    let group = |p: usize| {
        let len = hay[p..].iter().take(5).take_while(|b| b64(b)).count();
        (1..=4).contains(&len).then_some(len)
    };
    let next = |p: usize, len: usize| {
        (len == 4 && hay.get(p + len) == Some(&b' ') && hay.get(p + len + 1).is_some_and(b64)).then_some(p + len + 1)
    };
    // Counted first: most candidates (`web in pod`) end at once.
    let (mut count, mut p) = (0, i);
    while let Some(len) = group(p) {
        count += 1;
        let Some(after) = next(p, len) else { break };
        p = after;
    }
    if count < MIN_GROUPS {
        return None;
    }
    let mut groups = Vec::with_capacity(count);
    let mut p = i;
    while let Some(len) = group(p) {
        groups.push((p, p + len));
        let Some(after) = next(p, len) else { break };
        p = after;
    }
    Some(groups)
}

#[cfg(test)]
mod tests {
    use super::super::Redactor;
    use base64::Engine;

    const TOKEN: &str = "LiveTokQ7h3k9q2w8e5r1tZZ";
    const PASSWORD: &str = "Tk9&Zp3+Wm/x<Lq7>Vb2=Hd5Rr";

    /// Break-it 34 H1: zero-width spaces or dots between the characters,
    /// fullwidth letters, and base64 in groups of four were stored and printed.
    #[test]
    fn a_held_value_split_by_separators_fullwidth_or_in_base64_groups_is_masked() {
        for value in [TOKEN, PASSWORD] {
            let basic = format!("admin:{value}");
            let encoded = base64::engine::general_purpose::STANDARD.encode(value);
            let groups: Vec<String> = encoded.as_bytes().chunks(4).map(|g| String::from_utf8_lossy(g).into()).collect();
            let chars: Vec<String> = value.chars().map(String::from).collect();
            for r in [Redactor::new([value, basic.as_str()]), Redactor::for_records([value, basic.as_str()])] {
                for form in [
                    chars.join("\u{200B}"),
                    format!("\u{FEFF}{}", chars.join("\u{200D}")),
                    chars.join("."),
                    chars.join(" "),
                    value.chars().map(|c| char::from_u32(u32::from(c) + 0xFEE0).unwrap_or(c)).collect(),
                    groups.join(" "),
                ] {
                    // A zero-width character before the first one is kept (it shows nothing).
                    let want = if form.starts_with('\u{FEFF}') { "said: \u{FEFF}*** (end)" } else { "said: *** (end)" };
                    assert_eq!(r.redact(&format!("said: {form} (end)")), want, "{value}: {form:?}");
                }
            }
        }
        // Ordinary text with those characters is kept.
        let r = Redactor::new([TOKEN, PASSWORD]);
        for kept in [
            "Ｈｅｌｌｏ\u{200B}world",
            "v.1.2.3.4.5.6.7.8.9",
            "this is a test of the word grouping",
            "a b c d e f g h i",
        ] {
            assert_eq!(r.redact(kept), kept);
        }
    }
}
