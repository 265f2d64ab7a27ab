//! The benchmark's webhook receiver: HTTPS on loopback (hyper over rustls), answering every
//! request `200 ok` at once. It counts deliveries and, from each body's `event.timestamp`
//! (when the event was written to its outbox), the lag to receipt.

use std::convert::Infallible;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::Context;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

#[derive(Default)]
pub struct Stats {
    count: AtomicUsize,
    lags_ms: Mutex<Vec<i64>>,
}

impl Stats {
    pub fn count(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    /// The lags seen since the last reset, sorted.
    pub fn lags(&self) -> Vec<i64> {
        let mut lags = self
            .lags_ms
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        lags.sort_unstable();
        lags
    }

    pub fn reset(&self) {
        self.count.store(0, Ordering::Relaxed);
        self.lags_ms
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

fn acceptor(cert: &Path, key: &Path) -> anyhow::Result<TlsAcceptor> {
    let certs = CertificateDer::pem_file_iter(cert)
        .with_context(|| format!("reading {}", cert.display()))?
        .collect::<Result<Vec<_>, _>>()?;
    let key =
        PrivateKeyDer::from_pem_file(key).with_context(|| format!("reading {}", key.display()))?;
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_no_client_auth()
    .with_single_cert(certs, key)?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// Serves on `listener` until the task is dropped.
pub async fn serve(
    listener: TcpListener,
    cert: &Path,
    key: &Path,
    stats: Arc<Stats>,
) -> anyhow::Result<()> {
    let acceptor = acceptor(cert, key)?;
    loop {
        let (stream, _) = listener.accept().await?;
        let (acceptor, stats) = (acceptor.clone(), Arc::clone(&stats));
        tokio::spawn(async move {
            let Ok(tls) = acceptor.accept(stream).await else {
                return;
            };
            let service = service_fn(move |req| answer(req, Arc::clone(&stats)));
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(tls), service)
                .await;
        });
    }
}

async fn answer(
    req: Request<Incoming>,
    stats: Arc<Stats>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let now_ms = i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or_default(),
    )
    .unwrap_or_default();
    if let Some(at) = serde_json::from_slice::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v["event"]["timestamp"].as_i64())
    {
        stats
            .lags_ms
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(now_ms - at);
    }
    stats.count.fetch_add(1, Ordering::Relaxed);
    Ok(Response::new(Full::new(Bytes::from_static(b"ok"))))
}

/// An endpoint that never answers: it takes connections and says nothing, so every try
/// to it waits out the delivery timeout.
pub async fn silent(listener: TcpListener) {
    let mut held = Vec::new();
    while let Ok((stream, _)) = listener.accept().await {
        held.push(stream);
    }
}
