//! The LogsQL subset the fake understands — what kdrift sends, plus what
//! users typically pass as `--filter`:
//!
//! | filter | meaning |
//! |---|---|
//! | `_time:[A, B)`, `_time:[A, B]` | RFC 3339 time range, start inclusive, end as bracketed |
//! | `field:*` | the field is present (non-empty) |
//! | `field:=value` | exact value |
//! | `field:in(v1, v2)` | one of the exact values |
//! | `field:word` | the value contains `word` as a whole token |
//! | `field:"a phrase"` | the value contains the phrase |
//! | `word`, `"phrase"`, `*` | the same on `_msg`; `*` matches every row |
//! | juxtaposition or `and`, `or`, `not`/`-`/`!`, `( … )` | boolean logic |
//!
//! Field names may be quoted (`"k8s.event.name":*`). Anything else (pipes,
//! relative times, regexps) is a parse error, answered with 400 like the real
//! server's `cannot parse query`.

use chrono::DateTime;

use super::storage::StoredRow;

/// A parsed filter.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// Every row.
    All,
    /// The field is present.
    Exists(String),
    /// Exact value.
    Exact(String, String),
    /// One of exact values.
    In(String, Vec<String>),
    /// A whole token of the value.
    Word(String, String),
    /// A substring of the value.
    Phrase(String, String),
    /// `_time` in a range: (start ns, end ns, end inclusive).
    Time(i64, i64, bool),
    /// Both.
    And(Box<Filter>, Box<Filter>),
    /// Either.
    Or(Box<Filter>, Box<Filter>),
    /// Not.
    Not(Box<Filter>),
}

impl Filter {
    /// Whether `row` matches.
    pub fn matches(&self, row: &StoredRow) -> bool {
        let value = |f: &str| row.get(f).filter(|v| !v.is_empty());
        match self {
            Filter::All => true,
            Filter::Exists(f) => value(f).is_some(),
            Filter::Exact(f, v) => value(f).is_some_and(|x| &x == v) || (v.is_empty() && value(f).is_none()),
            Filter::In(f, vs) => value(f).is_some_and(|x| vs.contains(&x)),
            Filter::Word(f, w) => {
                value(f).is_some_and(|x| x.split(|c: char| !(c.is_alphanumeric() || c == '_')).any(|t| t == w))
            }
            Filter::Phrase(f, p) => value(f).is_some_and(|x| x.contains(p.as_str())),
            Filter::Time(s, e, incl) => row.time_ns >= *s && (row.time_ns < *e || (*incl && row.time_ns == *e)),
            Filter::And(a, b) => a.matches(row) && b.matches(row),
            Filter::Or(a, b) => a.matches(row) || b.matches(row),
            Filter::Not(a) => !a.matches(row),
        }
    }
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

/// Parses a query; the error reads like VictoriaLogs' 400 body.
pub fn parse(query: &str) -> Result<Filter, String> {
    let mut p = Parser { s: query, pos: 0 };
    let f = p.or()?;
    p.ws();
    if p.pos < p.s.len() {
        return Err(format!("unexpected {:?} at position {}", &p.s[p.pos..], p.pos));
    }
    Ok(f)
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.s[self.pos..]
    }

    fn ws(&mut self) {
        let skip = self.rest().len() - self.rest().trim_start().len();
        self.pos += skip;
    }

    fn eat(&mut self, c: char) -> bool {
        self.ws();
        if self.rest().starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// A keyword followed by a space or `(`.
    fn keyword(&mut self, word: &str) -> bool {
        self.ws();
        let r = self.rest();
        let ok = r.len() > word.len()
            && r[..word.len()].eq_ignore_ascii_case(word)
            && r[word.len()..].starts_with([' ', '(', '\t', '\n']);
        if ok {
            self.pos += word.len();
        }
        ok
    }

    fn or(&mut self) -> Result<Filter, String> {
        let mut left = self.and()?;
        while self.keyword("or") {
            left = Filter::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Filter, String> {
        let mut left = self.unary()?;
        loop {
            self.ws();
            let r = self.rest();
            if r.is_empty() || r.starts_with(')') || r.starts_with('|') {
                if r.starts_with('|') {
                    return Err("pipes are not supported by the fake".into());
                }
                return Ok(left);
            }
            let save = self.pos;
            if self.keyword("or") {
                self.pos = save;
                return Ok(left);
            }
            self.keyword("and");
            left = Filter::And(Box::new(left), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Filter, String> {
        self.ws();
        if self.keyword("not") || self.eat('!') || (self.rest().starts_with('-') && self.eat('-')) {
            return Ok(Filter::Not(Box::new(self.unary()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Filter, String> {
        if self.eat('(') {
            let f = self.or()?;
            if !self.eat(')') {
                return Err(format!("missing ')' at position {}", self.pos));
            }
            return Ok(f);
        }
        if self.eat('*') {
            return Ok(Filter::All);
        }
        let (term, quoted) = self.term()?;
        if self.rest().starts_with(':') {
            self.pos += 1;
            return self.value_filter(term);
        }
        Ok(if quoted { Filter::Phrase("_msg".into(), term) } else { Filter::Word("_msg".into(), term) })
    }

    /// A quoted string or a bare token.
    fn term(&mut self) -> Result<(String, bool), String> {
        self.ws();
        if self.rest().starts_with('"') {
            return self.quoted().map(|s| (s, true));
        }
        let end = self.rest().find(|c: char| c.is_whitespace() || "():,\"|".contains(c)).unwrap_or(self.rest().len());
        if end == 0 {
            return Err(format!("expected a word or a field filter at position {}", self.pos));
        }
        let t = self.rest()[..end].to_string();
        self.pos += end;
        Ok((t, false))
    }

    fn quoted(&mut self) -> Result<String, String> {
        let mut out = String::new();
        let mut chars = self.rest().char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, n)) = chars.next() {
                        out.push(n);
                    }
                }
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                c => out.push(c),
            }
        }
        Err("unterminated quoted string".into())
    }

    fn value_filter(&mut self, field: String) -> Result<Filter, String> {
        let r = self.rest();
        if field == "_time" && (r.starts_with('[') || r.starts_with('(')) {
            return self.time_range();
        }
        if self.eat('*') {
            return Ok(Filter::Exists(field));
        }
        let r = self.rest();
        if r.starts_with('=') {
            self.pos += 1;
            let (v, _) = self.term()?;
            return Ok(Filter::Exact(field, v));
        }
        if r.starts_with("in(") {
            self.pos += 3;
            let mut values = Vec::new();
            loop {
                values.push(self.term()?.0);
                if self.eat(')') {
                    return Ok(Filter::In(field, values));
                }
                if !self.eat(',') {
                    return Err(format!("expected ',' or ')' in in(...) at position {}", self.pos));
                }
            }
        }
        let (v, quoted) = self.term()?;
        Ok(if quoted { Filter::Phrase(field, v) } else { Filter::Word(field, v) })
    }

    fn time_range(&mut self) -> Result<Filter, String> {
        let start_inclusive = self.rest().starts_with('[');
        self.pos += 1;
        let close = self.rest().find([')', ']']).ok_or("unterminated _time range")?;
        let inner = self.rest()[..close].to_string();
        let end_inclusive = self.rest()[close..].starts_with(']');
        self.pos += close + 1;
        let (a, b) = inner.split_once(',').ok_or("a _time range needs two times")?;
        let t = |s: &str| {
            DateTime::parse_from_rfc3339(s.trim())
                .ok()
                .and_then(|t| t.timestamp_nanos_opt())
                .ok_or_else(|| format!("cannot parse time {:?}", s.trim()))
        };
        let start = t(a)? + i64::from(!start_inclusive);
        Ok(Filter::Time(start, t(b)?, end_inclusive))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn row(time: &str, fields: &[(&str, &str)]) -> StoredRow {
        let t = DateTime::parse_from_rfc3339(time).expect("t").timestamp_nanos_opt().expect("ns");
        let fields: BTreeMap<String, String> = fields.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        StoredRow { tenant: (0, 0), time_ns: t, fields }
    }

    #[test]
    fn kdrift_queries_and_user_filters() {
        let r = row(
            "2026-11-27T04:00:00Z",
            &[("_msg", "{\"involvedObject\":{}}"), ("involvedObject.name", "p"), ("reason", "FailedScheduling")],
        );
        let q = |s: &str| parse(s).unwrap_or_else(|e| panic!("{s}: {e}")).matches(&r);
        assert!(q(
            r#"_time:[2026-11-27T00:00:00Z, 2026-11-27T04:00:00Z] ("involvedObject.name":* or "regarding.name":*)"#
        ));
        assert!(!q("_time:[2026-11-27T00:00:00Z, 2026-11-27T04:00:00Z)"));
        assert!(q("(_msg:involvedObject or _msg:regarding) (reason:in(\"FailedScheduling\", Scheduled))"));
        assert!(q("reason:=FailedScheduling and not reason:=Scheduled"));
        assert!(q("-\"k8s.event.name\":* *"));
        assert!(!q("\"logType\":=event"));
        assert!(parse("* | sort by (_time)").is_err());
        assert!(parse("reason:in(a").is_err());
    }
}
