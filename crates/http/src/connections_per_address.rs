//! How many connections one client address may hold open at once
//! (`http.connections_per_address`). A connection over the bound is closed as it is
//! accepted, before it costs a buffer or a request: a client that opens thousands and
//! sends nothing would otherwise take the process's open files from everyone.
//!
//! The peer of the TCP connection is the client here, so a trusted proxy (the gateway, in
//! a deployment) is not counted: it carries every client's connections and bounds them
//! itself.

use std::any::Any;
use std::net::{IpAddr, Shutdown};

use actix_web::dev::Extensions;
use actix_web::rt::net::TcpStream;
use coffer_store::slots::Slots;

use crate::TrustedProxies;

/// The open connections of every address, shared by the server's workers.
#[derive(Clone)]
pub(crate) struct OpenConnections {
    open: Slots<IpAddr>,
    trusted: TrustedProxies,
}

impl OpenConnections {
    pub(crate) fn new(bound: usize, trusted: TrustedProxies) -> Self {
        Self {
            open: Slots::new(bound),
            trusted,
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
        match self.open.take(&ip) {
            // Kept in the connection's data, which is dropped with the connection.
            Some(slot) => {
                data.insert(slot);
            }
            None => {
                tracing::debug!(client = %ip, bound = self.open.bound(), "connection over the bound per address closed");
                // The server then reads the end of the stream and drops the connection.
                let _ = socket2::SockRef::from(stream).shutdown(Shutdown::Both);
            }
        }
    }
}
