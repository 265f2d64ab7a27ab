//! A client that sends half a body, or opens connection after connection, holds only what
//! it is allowed: its bodies are answered 408 and closed after `http.body_timeout_seconds`,
//! and its address keeps at most `http.connections_per_address` connections open. Another
//! organisation's client, from another address, is answered as ever meanwhile; its
//! latencies are printed for docs/benchmarks.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const BODY_TIMEOUT: &str = "2";
const PER_ADDRESS: usize = 64;
const ATTACKERS: usize = 300;

/// What became of one half-sent request.
#[derive(Debug, PartialEq)]
enum Ended {
    /// Answered 408 in the error shape, and closed.
    TimedOut,
    /// Closed as it was accepted, without an answer.
    Refused,
}

async fn connect_from(from: IpAddr, to: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(from, 0))?;
    socket.connect(to).await
}

/// A token request whose head says 200 bytes of body, of which 20 are sent.
async fn half_sent(to: SocketAddr) -> Ended {
    let mut stream = connect_from("127.0.0.1".parse().unwrap(), to)
        .await
        .unwrap();
    let head = "POST /oauth2/token HTTP/1.1\r\nHost: coffer\r\n\
                Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\n";
    // A connection refused as it was accepted may already be closed when this is written.
    if stream.write_all(head.as_bytes()).await.is_ok() {
        let _ = stream.write_all(b"grant_type=client_cr").await;
    }
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer)).await;
    let read = read.expect("the server neither answered nor closed within 30 s");
    let answer = String::from_utf8_lossy(&answer).to_lowercase();
    if answer.is_empty() {
        // Closed without a byte (a reset counts: the server shut the connection at once).
        let _ = read;
        return Ended::Refused;
    }
    assert!(answer.starts_with("http/1.1 408"), "{answer}");
    assert!(answer.contains("connection: close"), "{answer}");
    assert!(answer.contains("request_timeout"), "{answer}");
    Ended::TimedOut
}

fn percentile(sorted: &[Duration], p: usize) -> Duration {
    sorted[(sorted.len() * p / 100).min(sorted.len() - 1)]
}

#[tokio::test]
async fn half_sent_bodies_time_out_and_one_address_cannot_hold_every_connection() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let per_address = PER_ADDRESS.to_string();
    let mut server = start_with(
        &data,
        &[
            ("COFFER_HTTP__BODY_TIMEOUT_SECONDS", BODY_TIMEOUT),
            ("COFFER_HTTP__CONNECTIONS_PER_ADDRESS", &per_address),
        ],
    );
    let c = credentials(&data, &mut server).await;
    let base = c["base_url"].as_str().unwrap().to_owned();
    let to: SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let (id, secret) = (
        c["client_id"].as_str().unwrap(),
        c["client_secret"].as_str().unwrap(),
    );

    // The other organisation's client comes from another loopback address.
    let other = reqwest::Client::builder()
        .local_address("127.0.0.2".parse::<IpAddr>().unwrap())
        .build()
        .unwrap();
    let token = token_from(&other, &base, id, secret).await;

    // A body sent in two parts, a second apart, is within its time and taken.
    let mut slow = connect_from("127.0.0.1".parse().unwrap(), to)
        .await
        .unwrap();
    let body = format!("grant_type=client_credentials&client_id={id}&client_secret={secret}");
    let head = format!(
        "POST /oauth2/token HTTP/1.1\r\nHost: coffer\r\nConnection: close\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    slow.write_all(head.as_bytes()).await.unwrap();
    let (first, rest) = body.split_at(body.len() / 2);
    slow.write_all(first.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    slow.write_all(rest.as_bytes()).await.unwrap();
    let mut answer = String::new();
    slow.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    let attack: Vec<_> = (0..ATTACKERS)
        .map(|_| tokio::spawn(half_sent(to)))
        .collect();
    // Side by side, the other client reads and takes tokens.
    let mut latencies = Vec::new();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(3) {
        let t = Instant::now();
        let res = other
            .get(format!("{base}/webhooks"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
        latencies.push(t.elapsed());
        let t = Instant::now();
        token_from(&other, &base, id, secret).await;
        latencies.push(t.elapsed());
    }
    let mut ended = Vec::new();
    for a in attack {
        ended.push(a.await.unwrap());
    }
    let timed_out = ended.iter().filter(|e| **e == Ended::TimedOut).count();
    let refused = ended.len() - timed_out;
    assert!(
        timed_out >= PER_ADDRESS,
        "{timed_out} answered 408, {refused} refused"
    );
    assert!(refused > 0, "{timed_out} answered 408, none refused");

    // Once they are gone, the address is served again.
    let again = reqwest::Client::new()
        .get(format!("{base}/health/live"))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);

    latencies.sort();
    println!(
        "{ATTACKERS} half-sent bodies from one address (bound {PER_ADDRESS}, timeout {BODY_TIMEOUT} s): \
         {timed_out} answered 408, {refused} closed at once; the other client's {} requests: \
         median {:?}, p95 {:?}, max {:?}",
        latencies.len(),
        percentile(&latencies, 50),
        percentile(&latencies, 95),
        latencies.last().unwrap()
    );
}
