use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{Error, HttpResponse, web};
use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry, TextEncoder,
};

/// Request counts and latency histograms per route pattern. Labelled by the pattern
/// (`/organisations/{organisation_uuid}`), never the raw path, so ids cannot blow up the
/// number of series.
#[derive(Clone)]
pub struct Metrics {
    registry: Registry,
    requests: IntCounterVec,
    latency: HistogramVec,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    pub fn new() -> Result<Self, prometheus::Error> {
        let registry = Registry::new_custom(Some("coffer".into()), None)?;
        let requests = IntCounterVec::new(
            Opts::new("http_requests_total", "HTTP requests served"),
            &["method", "route", "status"],
        )?;
        let latency = HistogramVec::new(
            HistogramOpts::new("http_request_duration_seconds", "HTTP request latency").buckets(
                vec![
                    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                ],
            ),
            &["method", "route"],
        )?;
        registry.register(Box::new(requests.clone()))?;
        registry.register(Box::new(latency.clone()))?;
        Ok(Self {
            registry,
            requests,
            latency,
        })
    }

    /// The registry, for modules that add metrics of their own.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    fn observe(&self, method: &str, route: &str, status: u16, seconds: f64) {
        self.requests
            .with_label_values(&[method, route, &status.to_string()])
            .inc();
        self.latency
            .with_label_values(&[method, route])
            .observe(seconds);
    }

    fn render(&self) -> Result<Vec<u8>, prometheus::Error> {
        let mut out = Vec::new();
        TextEncoder::new().encode(&self.registry.gather(), &mut out)?;
        Ok(out)
    }
}

pub(crate) async fn middleware(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let started = Instant::now();
    let method = req.method().to_string();
    let metrics = req.app_data::<web::Data<Metrics>>().cloned();
    let res = next.call(req).await?;
    if let Some(metrics) = metrics {
        let route = res
            .request()
            .match_pattern()
            .unwrap_or_else(|| "unmatched".to_owned());
        metrics.observe(
            &method,
            &route,
            res.status().as_u16(),
            started.elapsed().as_secs_f64(),
        );
    }
    Ok(res)
}

pub(crate) async fn endpoint(metrics: web::Data<Metrics>) -> HttpResponse {
    match metrics.render() {
        Ok(body) => HttpResponse::Ok()
            .content_type(TextEncoder::new().format_type())
            .body(body),
        Err(e) => {
            tracing::error!(error = %e, "could not render metrics");
            HttpResponse::InternalServerError().finish()
        }
    }
}
