//! A probe URL filled for one pod (break-it 31 F4). The pod's name and
//! namespace come from the API server: a hostile one naming a pod
//! `127.0.0.1:34003/?` or `a@127.0.0.1:34003#` moved
//! `http://{name}.default.svc/s?token=…` to another host, token included.
//!
//! - a pod whose name is not an RFC 1123 subdomain, or whose namespace is
//!   not an RFC 1123 label, is not probed (Kubernetes refuses to create
//!   one: `ValidatePodName` is `NameIsDNSSubdomain`, a namespace's name is
//!   `ValidateNamespaceName`, a DNS label; apimachinery
//!   `validation.IsDNS1123Subdomain` / `IsDNS1123Label`). Such a name
//!   contains only `a-z`, `0-9`, `-` and `.`, so it cannot leave the host
//!   label it is put in;
//! - in the path and query they are percent-encoded anyway (every byte but
//!   RFC 3986's unreserved `A-Za-z0-9-._~`); in the authority and the
//!   fragment (the JSON pointer, not sent) they are put as they are.

/// Longest RFC 1123 label, characters (apimachinery `DNS1123LabelMaxLength`).
pub const DNS1123_LABEL_MAX: usize = 63;
/// Longest RFC 1123 subdomain, characters (apimachinery `DNS1123SubdomainMaxLength`).
pub const DNS1123_SUBDOMAIN_MAX: usize = 253;

/// Whether `s` is an RFC 1123 label: 1 to 63 lowercase letters, digits
/// and `-`, starting and ending with a letter or digit.
pub fn is_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    (1..=DNS1123_LABEL_MAX).contains(&b.len())
        && b.first().is_some_and(alnum)
        && b.last().is_some_and(alnum)
        && b.iter().all(|c| alnum(c) || *c == b'-')
}

/// Whether `s` is an RFC 1123 subdomain: at most 253 characters, labels
/// ([`is_dns1123_label`]'s characters, any length) joined by `.`.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    (1..=DNS1123_SUBDOMAIN_MAX).contains(&s.len())
        && s.split('.').all(|l| {
            let b = l.as_bytes();
            b.first().is_some_and(alnum) && b.last().is_some_and(alnum) && b.iter().all(|c| alnum(c) || *c == b'-')
        })
}

/// `text` percent-encoded but for RFC 3986's unreserved characters.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `template` (a probe URL) with `{namespace}` and `{name}` filled for one
/// pod (see the module doc).
///
/// # Errors
/// Why the pod is not probed: its name or namespace is not a Kubernetes
/// name (quoted, credentials held masked).
pub fn fill(template: &str, namespace: &str, name: &str) -> Result<String, String> {
    let refuse = |what: &str, value: &str, rule: &str| {
        Err(crate::redact::held().redact(&format!(
            "the pod's {what} {value:?} is not a Kubernetes {what} (an RFC 1123 {rule}: lowercase letters, digits, \
             '-'{}); kdrift puts no such text in a probe URL",
            if rule == "label" { "" } else { " and '.'" }
        )))
    };
    if !is_dns1123_subdomain(name) {
        return refuse("name", name, "subdomain");
    }
    if !is_dns1123_label(namespace) {
        return refuse("namespace", namespace, "label");
    }
    let fill_raw = |part: &str| part.replace("{namespace}", namespace).replace("{name}", name);
    let fill_encoded =
        |part: &str| part.replace("{namespace}", &percent_encode(namespace)).replace("{name}", &percent_encode(name));
    // scheme://authority | path?query | #fragment
    let (before_fragment, fragment) = match template.split_once('#') {
        Some((u, f)) => (u, Some(f)),
        None => (template, None),
    };
    let authority_at = before_fragment.find("://").map_or(0, |i| i + 3);
    let authority_end =
        before_fragment[authority_at..].find(['/', '?']).map_or(before_fragment.len(), |i| authority_at + i);
    let mut url = fill_raw(&before_fragment[..authority_end]);
    url.push_str(&fill_encoded(&before_fragment[authority_end..]));
    if let Some(f) = fragment {
        url.push('#');
        url.push_str(&fill_raw(f));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubernetes_names() {
        for ok in ["a", "web-0", "plex-7d9f8-x2x", "a.b-c.d", "0"] {
            assert!(is_dns1123_subdomain(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "A", "a..b", ".a", "a_b", "127.0.0.1:34003/?", "a@127.0.0.1:34003#", "a/b", "***"] {
            assert!(!is_dns1123_subdomain(bad), "{bad}");
        }
        assert!(is_dns1123_subdomain(&"a".repeat(253)) && !is_dns1123_subdomain(&"a".repeat(254)));
        assert!(is_dns1123_label("kube-system") && !is_dns1123_label("a.b"));
        assert!(is_dns1123_label(&"a".repeat(63)) && !is_dns1123_label(&"a".repeat(64)));
    }

    #[test]
    fn a_hostile_name_is_refused_and_names_are_encoded_in_path_and_query_only() {
        let t = "http://{name}.{namespace}.svc:9/s/{name}?pod={namespace}/{name}&t=T0k#/{name}";
        assert_eq!(
            fill(t, "media", "plex-0.a").as_deref(),
            Ok("http://plex-0.a.media.svc:9/s/plex-0.a?pod=media/plex-0.a&t=T0k#/plex-0.a")
        );
        assert_eq!(
            fill("http://{name}.default.svc:9/s?X-Plex-Token=x", "default", "127.0.0.1:34003/?"),
            Err("the pod's name \"127.0.0.1:34003/?\" is not a Kubernetes name (an RFC 1123 subdomain: lowercase \
                 letters, digits, '-' and '.'); kdrift puts no such text in a probe URL"
                .to_string())
        );
        assert_eq!(
            fill("http://x/{name}", "default", "a@127.0.0.1:34003#"),
            Err("the pod's name \"a@127.0.0.1:34003#\" is not a Kubernetes name (an RFC 1123 subdomain: lowercase \
                 letters, digits, '-' and '.'); kdrift puts no such text in a probe URL"
                .to_string())
        );
        assert_eq!(
            fill("http://x/{namespace}", "a.b", "web-0"),
            Err("the pod's namespace \"a.b\" is not a Kubernetes namespace (an RFC 1123 label: lowercase letters, \
                 digits, '-'); kdrift puts no such text in a probe URL"
                .to_string())
        );
        assert_eq!(percent_encode("a/b?c#d@e:f %"), "a%2Fb%3Fc%23d%40e%3Af%20%25");
    }
}
