//! How many connections one client address may hold open at once
//! (`http.connections_per_address`). A connection over the bound is closed as it is
//! accepted, before it costs a buffer or a request: a client that opens thousands and
//! sends nothing would otherwise take the process's open files from everyone.
//!
//! The peer of the TCP connection is the client here, so a trusted proxy (the gateway, in
//! a deployment) is not counted: it carries every client's connections and bounds them
//! itself.

use std::any::Any;
use std::collections::HashMap;
use std::net::{IpAddr, Shutdown};
use std::sync::{Arc, Mutex, PoisonError};

use actix_web::dev::Extensions;
use actix_web::rt::net::TcpStream;

use crate::TrustedProxies;

/// The open connections of every address, shared by the server's workers.
#[derive(Clone)]
pub(crate) struct OpenConnections {
    bound: usize,
    trusted: TrustedProxies,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// Held in a connection's data for as long as it is open; counts it down when dropped.
struct Counted {
    ip: IpAddr,
    open: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

impl OpenConnections {
    pub(crate) fn new(bound: usize, trusted: TrustedProxies) -> Self {
        Self {
            bound: bound.max(1),
            trusted,
            open: Arc::default(),
        }
    }

    /// Counts a new connection, or shuts it down when its address holds the bound
    /// already; for `HttpServer::on_connect`.
    pub(crate) fn on_connect(&self, connection: &dyn Any, data: &mut Extensions) {
        let Some(stream) = connection.downcast_ref::<TcpStream>() else {
            return;
        };
        let Ok(peer) = stream.peer_addr() else {
            return;
        };
        let ip = peer.ip().to_canonical();
        if self.trusted.contains(ip) {
            return;
        }
        let admitted = {
            let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
            let n = open.entry(ip).or_insert(0);
            *n += 1;
            *n <= self.bound
        };
        // Counted either way: the connection's data is dropped when the connection is,
        // refused or not, and counts it down then.
        data.insert(Counted {
            ip,
            open: Arc::clone(&self.open),
        });
        if !admitted {
            tracing::debug!(client = %ip, bound = self.bound, "connection over the bound per address closed");
            // The server then reads the end of the stream and drops the connection.
            let _ = socket2::SockRef::from(stream).shutdown(Shutdown::Both);
        }
    }
}
