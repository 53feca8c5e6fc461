//! Counts in words, agreeing in number: `1 pod`, `2 pods`, `1 of them has`,
//! `3 of them have`. For the analyses' notes and the CLI's messages, which
//! name counts that are often 1.

/// `n` and the noun agreeing with it: `count(1, "pod", "pods")` → `1 pod`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", pick(n, one, many))
}

/// `one` when `n` is 1, else `many` (a verb or noun agreeing with a count).
pub fn pick<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1, "pod", "pods"), "1 pod");
        assert_eq!(count(0, "pod", "pods"), "0 pods");
        assert_eq!(count(2, "pod", "pods"), "2 pods");
        assert_eq!(format!("1 of them {}", pick(1, "has", "have")), "1 of them has");
        assert_eq!(format!("4 of them {}", pick(4, "has", "have")), "4 of them have");
    }
}
