//! URLs that carry credentials, checked before any request is sent: a
//! kubeconfig cluster's `server:` and `proxy-url:`, and the proxy variables
//! of the environment (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, lower
//! case too).
//!
//! - A port that is no port (`99999`, `65536`, `-1`, `3128abc`: a typo) is
//!   refused ([`problem`]): the `http` crate's `Uri`, which kube and
//!   hyper-util's environment proxies use, accepts it, `port_u16()` is then
//!   `None` and hyper connects to port 80 of that host, an origin the user
//!   never named, with the bearer token or `Proxy-Authorization` (break-it
//!   43 N2). Go's `net/url` and dialer, hence kubectl, refuse such ports.
//! - A `/` before the `@` (a password with an unescaped `/`) is refused:
//!   the URL's host would be read from inside the password (kubectl refuses
//!   it as a bad port too).
//! - [`masked`] shows a URL with its password masked (`http://user:***@host:port/path`,
//!   the query dropped) for these refusals; [`user_info`] finds the user
//!   info wherever it is (everything before the last `@` ahead of the
//!   query), so that a malformed one is never shown (break-it 43 N4).

/// The parts of `url`: its scheme (empty without `://`), its user info
/// (everything before the last `@` of the part between `://` and the
/// first `?` or `#`) and the rest (host, port, path, query).
pub fn user_info(url: &str) -> (&str, Option<&str>, &str) {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    match rest[..end].rfind('@') {
        Some(at) => (scheme, Some(&rest[..at]), &rest[at + 1..]),
        None => (scheme, None, rest),
    }
}

/// `url` as the refusals show it: the user name kept when it holds no `/`,
/// the password masked (`***`), the query and fragment dropped.
pub fn masked(url: &str) -> String {
    let (scheme, info, rest) = user_info(url);
    let rest = &rest[..rest.find(['?', '#']).unwrap_or(rest.len())];
    let info = match info {
        None => String::new(),
        Some(info) if info.contains('/') => format!("{}@", crate::redact::MASK),
        Some(info) => match info.split_once(':') {
            Some((user, _)) => format!("{user}:{}@", crate::redact::MASK),
            None => format!("{info}@"),
        },
    };
    let shown = if scheme.is_empty() { format!("{info}{rest}") } else { format!("{scheme}://{info}{rest}") };
    crate::redact::mask_shown(&shown)
}

/// What makes `url` unfit to send credentials to (see the module doc), or
/// `None`: a `/` before its `@`, or a port that is not a number from 1 to
/// 65535. An empty port (`http://host:`) is the scheme's default, as in
/// every URL parser.
pub fn problem(url: &str) -> Option<String> {
    let (_, info, rest) = user_info(url);
    if info.is_some_and(|i| i.contains('/')) {
        return Some(
            "a `/` comes before its `@`: a user or password holding `/` must write it `%2F` (as written, the host \
             would be read from inside the password)"
                .to_string(),
        );
    }
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    let port = match authority.strip_prefix('[') {
        // [::1]:6443
        Some(v6) => v6.split_once(']').and_then(|(_, after)| after.strip_prefix(':')),
        None => authority.rsplit_once(':').map(|(_, port)| port),
    };
    let port = port.filter(|p| !p.is_empty())?;
    let fit = port.bytes().all(|b| b.is_ascii_digit()) && port.parse::<u32>().is_ok_and(|p| (1..=65_535).contains(&p));
    if fit {
        return None;
    }
    let port: String = port.chars().take(12).collect();
    Some(format!(
        "its port {port:?} is not a number from 1 to 65535 (sent as it is, the request would go to port 80 of that \
         host)"
    ))
}

/// The first proxy variable of the environment
/// ([`super::credentials::PROXY_VARIABLES`]) whose URL is refused
/// (`problem`), as `NAME=URL (masked): problem`; reqwest reads them itself
/// for the VictoriaLogs and Prometheus clients, which check them before
/// any request.
pub fn env_proxy_problem() -> Option<String> {
    super::credentials::PROXY_VARIABLES.iter().find_map(|name| {
        let value = std::env::var(name).ok().filter(|v| !v.trim().is_empty())?;
        let problem = problem(value.trim())?;
        Some(format!("the proxy {name}={}: {problem}; correct or unset it", masked(value.trim())))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_that_is_no_port_is_refused_and_the_password_is_masked() {
        for (url, port) in [
            ("http://us:PaSs9@127.0.0.1:99999", "99999"),
            ("http://127.0.0.1:65536/", "65536"),
            ("http://127.0.0.1:-1", "-1"),
            ("http://proxy:3128abc", "3128abc"),
            ("http://[::1]:70000/x", "70000"),
            ("127.0.0.1:0", "0"),
        ] {
            let said = problem(url).unwrap_or_else(|| panic!("{url} accepted"));
            assert!(said.starts_with(&format!("its port \"{port}\" is not a number from 1 to 65535")), "{said}");
        }
        for fine in [
            "http://127.0.0.1:3128",
            "https://10.0.0.1:6443/k8s/clusters/c-1",
            "http://host:",
            "http://[::1]:6443",
            "http://[::1]/",
            "proxy.corp:8080",
            "http://u:p%2Fw@h:1",
            "https://h/api?x=1:2",
        ] {
            assert_eq!(problem(fine), None, "{fine}");
        }
        assert_eq!(masked("http://us:PaSs9@127.0.0.1:99999/p?token=x"), "http://us:***@127.0.0.1:99999/p");
        assert_eq!(masked("http://admin:Ui9pw/Kd+x7Q=Lm2Zr8@127.0.0.1:19971"), "http://***@127.0.0.1:19971");
        assert!(problem("http://admin:Ui9pw/Kd+x7Q=Lm2Zr8@127.0.0.1:19971").is_some_and(|p| p.contains("`%2F`")));
        assert_eq!(user_info("http://a:b@h/x@y?q=@"), ("http", Some("a:b@h/x"), "y?q=@"));
    }
}
