//! Redirects from the Kubernetes API are not followed: kube's client
//! would otherwise hand the `307`'s empty or HTML body to the JSON parser
//! and the error said only "not JSON" (break-it F9). [`client`]
//! builds every client kdrift builds ([`super::connect`]) so that a 3xx
//! answer becomes a [`Redirected`] error naming the status and where the
//! `Location` points: its origin only (`scheme://host:port`, no
//! credentials, path or query), redacted ([`crate::redact::held`]).

use kube::client::{ClientBuilder, DynBody};
use kube::Client;

/// A 3xx answer from the Kubernetes API, not followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", redirect_text(*status, to, *same_origin))]
pub struct Redirected {
    /// The status code (301, 302, 303, 307, 308).
    pub status: u16,
    /// The origin of its `Location` (`https://host:port`), or why there is none.
    pub to: String,
    /// Whether it points at the kubeconfig's server itself (another path).
    pub same_origin: bool,
}

fn redirect_text(status: u16, to: &str, same_origin: bool) -> String {
    if same_origin {
        format!(
            "HTTP {status}: the server redirects to another path on the same origin, {to}; kdrift follows no \
             redirect from the Kubernetes API (a proxy in front of it? point the kubeconfig's `server:` at the \
             API server's own URL; --follow-redirects is for VictoriaLogs only)"
        )
    } else {
        format!(
            "HTTP {status}: the server redirects to another origin, {to}; kdrift follows no redirect from the \
             Kubernetes API (the credentials would go there): if that is your API server, set the kubeconfig's \
             `server:` to it"
        )
    }
}

/// The origin (`scheme://host[:port]`) of `url`, without credentials, path or query.
fn origin_of(url: &reqwest::Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{}://{host}:{port}", url.scheme()),
        (Some(host), None) => format!("{}://{host}", url.scheme()),
        (None, _) => format!("a {}: URL", url.scheme()),
    }
}

/// The [`Redirected`] error of a 3xx answer whose `Location` is `location`,
/// from the server at `server` (the kubeconfig's URL, against which a
/// relative `Location` is read).
pub fn redirected(status: u16, location: Option<&[u8]>, server: &str) -> Redirected {
    let base = reqwest::Url::parse(server).ok();
    let (to, same_origin) = match location.map(std::str::from_utf8) {
        None => ("(no Location header)".to_string(), false),
        Some(Err(_)) => ("(a Location that is not text)".to_string(), false),
        Some(Ok(l)) => match base.as_ref().map_or_else(|| reqwest::Url::parse(l), |b| b.join(l)) {
            Ok(url) => {
                let same = base.as_ref().is_some_and(|b| origin_of(b) == origin_of(&url));
                (origin_of(&url), same)
            }
            Err(_) => ("(a Location that is no URL)".to_string(), false),
        },
    };
    Redirected { status, to: crate::redact::held().redact(&to), same_origin }
}

/// A client for `config` whose 3xx answers are [`Redirected`] errors
/// ([`kube::Error::Service`] holding one, [`super::ClusterError::Redirected`]
/// once wrapped), and whose exec plugin's expiring token is renewed
/// ([`super::exec::refresh`]).
///
/// # Errors
/// kube's, when the client cannot be built (bad TLS material, unsupported auth).
pub fn client(mut config: kube::Config) -> Result<Client, kube::Error> {
    let refresh = super::exec::refresh::take(&mut config);
    let server = config.cluster_url.to_string();
    let layer = tower::util::AndThenLayer::new(move |response: http::Response<Box<DynBody>>| {
        let status = response.status();
        let result = if status.is_redirection() {
            let location = response.headers().get(http::header::LOCATION).map(http::HeaderValue::as_bytes);
            Err(Box::new(redirected(status.as_u16(), location, &server)) as tower::BoxError)
        } else {
            Ok(response)
        };
        std::future::ready(result)
    });
    let builder = ClientBuilder::try_from(config)?;
    Ok(match refresh {
        Some(refresh) => builder.with_layer(&refresh).with_layer(&layer).build(),
        None => builder.with_layer(&layer).build(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_location_is_named_by_its_origin_only_without_credentials_path_or_query() {
        let r = redirected(307, Some(b"http://admin:s3cret@10.9.8.7:8443/steal?token=abc"), "https://10.0.0.1:6443");
        assert_eq!((r.status, r.to.as_str(), r.same_origin), (307, "http://10.9.8.7:8443", false));
        let r = redirected(302, Some(b"/login?next=/api"), "https://10.0.0.1:6443/");
        assert_eq!((r.to.as_str(), r.same_origin), ("https://10.0.0.1:6443", true));
        assert!(r.to_string().contains("--follow-redirects is for VictoriaLogs only"), "{r}");
        assert_eq!(redirected(301, None, "https://a").to, "(no Location header)");
    }
}
