//! A cluster whose TLS certificate the client does not accept: the error
//! names the cause rustls gives (break-it 33 F10: every resource said
//! "ServiceError: client error (Connect)", even with -vv). The server is
//! rustls on 127.0.0.1 with a self-signed certificate for
//! `kdrift-server.invalid` (ECDSA P-256, valid 2000–2999), made for these
//! tests only.

use std::io::Read;
use std::net::TcpListener;
use std::sync::Arc;

use base64::Engine;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::error::ClusterError;
use super::list::ListPager;
use super::resource::{Scope, HISTORY_RESOURCES};
use super::ClusterOptions;

/// The server's certificate (self-signed, for `kdrift-server.invalid` only).
const SERVER_PEM: &str = "\
-----BEGIN CERTIFICATE-----
MIIBmjCCAUGgAwIBAgIUaAlHUNmiHCAmyi06w4aqtuJIm3wwCgYIKoZIzj0EAwIw
IDEeMBwGA1UEAwwVa2RyaWZ0LXNlcnZlci5pbnZhbGlkMCAXDTAwMDEwMTAwMDAw
MFoYDzI5OTkxMjMxMDAwMDAwWjAgMR4wHAYDVQQDDBVrZHJpZnQtc2VydmVyLmlu
dmFsaWQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASxozfxEkNdBUeDBksoVjY9
chzmhPV+69PvpNFq2VFddfRd6MnIHuZn+4hcoN0bk2XmbjJvYd9eZ5kShIqE+oPA
o1cwVTAgBgNVHREEGTAXghVrZHJpZnQtc2VydmVyLmludmFsaWQwDAYDVR0TAQH/
BAIwADAOBgNVHQ8BAf8EBAMCB4AwEwYDVR0lBAwwCgYIKwYBBQUHAwEwCgYIKoZI
zj0EAwIDRwAwRAIgOqWB0/u+D7HOwpfwkQSKpwylGB7LDdBv5S9zb3wvCa8CIBU7
TEaowvh8EJ9rh5GBpxBYqOE5mWT/B+2yoYU7AIj/
-----END CERTIFICATE-----
";

/// Its key (a throwaway, for this test server only).
const SERVER_KEY: &str = "\
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgt/RpQhtGlREA44u9
XCRaWuNOkosVS2+cXmHWfKvkPzahRANCAASxozfxEkNdBUeDBksoVjY9chzmhPV+
69PvpNFq2VFddfRd6MnIHuZn+4hcoN0bk2XmbjJvYd9eZ5kShIqE+oPA
-----END PRIVATE KEY-----
";

/// Another self-signed certificate, which did not sign the server's.
const OTHER_PEM: &str = "\
-----BEGIN CERTIFICATE-----
MIIBmDCCAT6gAwIBAgIUL8RfRhPOPA8mPM1EjUufES6jD+MwCgYIKoZIzj0EAwIw
HzEdMBsGA1UEAwwUa2RyaWZ0LW90aGVyLmludmFsaWQwIBcNMDAwMTAxMDAwMDAw
WhgPMjk5OTEyMzEwMDAwMDBaMB8xHTAbBgNVBAMMFGtkcmlmdC1vdGhlci5pbnZh
bGlkMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEo6JUhCHtymI4OKvjN9ay+cTo
tDVoS5OLd4jvMJmQXbCqKqIwXRDc1nvGDQjRDOSppnJ53jcaAmOiujqgfK9akqNW
MFQwHwYDVR0RBBgwFoIUa2RyaWZ0LW90aGVyLmludmFsaWQwDAYDVR0TAQH/BAIw
ADAOBgNVHQ8BAf8EBAMCB4AwEwYDVR0lBAwwCgYIKwYBBQUHAwEwCgYIKoZIzj0E
AwIDSAAwRQIhAMz0Mu+lFvpQYtQCTXH0Kb4m3SN+qPwajczPKO9aIHSBAiBUYpUX
fIaCgJsXfPpPddlmfH3QCy5/RLzzuJm5KqpHVQ==
-----END CERTIFICATE-----
";

/// The bearer token of the kubeconfig, never to be shown.
const TOKEN: &str = "TlsTestTok7Qz8Lp4Wm2Xk9";

/// Starts the TLS server; its port. Each connection is driven until the
/// client gives up (the handshake fails on the client's side).
fn tls_server() -> u16 {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let cert = CertificateDer::from_pem_slice(SERVER_PEM.as_bytes()).expect("certificate");
    let key = PrivateKeyDer::from_pem_slice(SERVER_KEY.as_bytes()).expect("key");
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .expect("server config");
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for tcp in listener.incoming().map_while(Result::ok) {
            let config = config.clone();
            std::thread::spawn(move || {
                let Ok(conn) = rustls::ServerConnection::new(config) else { return };
                let mut tls = rustls::StreamOwned::new(conn, tcp);
                let _ = tls.read(&mut [0u8; 1024]);
            });
        }
    });
    port
}

/// The error of listing pods at `https://127.0.0.1:port` trusting `ca` (PEM).
fn list_error(port: u16, ca: &str) -> ClusterError {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("config");
    let ca = base64::engine::general_purpose::STANDARD.encode(ca);
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n  cluster: {{server: \
             'https://127.0.0.1:{port}', certificate-authority-data: {ca}}}\ncontexts:\n- name: c\n  context: \
             {{cluster: k, user: u, namespace: web}}\nusers:\n- name: u\n  user: {{token: {TOKEN}}}\n"
        ),
    )
    .expect("kubeconfig");
    let options = ClusterOptions { kubeconfig: Some(path), context: None };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let connected = options.open().await.expect("client");
        let pods = HISTORY_RESOURCES.iter().find(|r| r.plural == "pods").expect("pods");
        let mut pager = ListPager::new(connected.client, pods, &Scope::Namespace("web".into()), 500);
        pager.next_page().await.expect_err("the handshake fails")
    })
}

#[test]
fn a_certificate_no_trusted_authority_signed_is_named_as_the_cause() {
    let port = tls_server();
    let e = list_error(port, OTHER_PEM);
    assert!(matches!(e, ClusterError::Transport { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "pods: request to /api/v1/namespaces/web/pods failed: ServiceError: client error (Connect): invalid peer \
         certificate: UnknownIssuer"
    );
    // The same cause under every resource: the recorder warns once for it.
    assert_eq!(super::error::root_cause(&e), "invalid peer certificate: UnknownIssuer");
}

#[test]
fn a_certificate_for_another_name_is_named_as_the_cause() {
    let port = tls_server();
    let e = list_error(port, SERVER_PEM).to_string();
    assert_eq!(
        e,
        "pods: request to /api/v1/namespaces/web/pods failed: ServiceError: client error (Connect): invalid peer \
         certificate: certificate not valid for name \"127.0.0.1\"; certificate is only valid for \
         DnsName(\"kdrift-server.invalid\")"
    );
    assert!(!e.contains(TOKEN), "{e}");
}
