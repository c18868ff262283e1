//! `navigator mcp --http ADDR`: the same server over MCP's streamable HTTP transport, at the
//! path `/mcp` (rmcp's `StreamableHttpService` hosted on hyper, one session per client).
//!
//! Every session is a clone of one [`McpServer`], so all clients share the engine, the write
//! lock and the session's Flight Plans exactly as stdio calls do. The `Host` header is checked
//! against loopback names plus `--allow-host` (DNS-rebinding protection); other paths are 404.

use super::McpServer;
use crate::exit::{Failure, INDEX, INPUT};
use anyhow::anyhow;
use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

/// The path the MCP endpoint answers on.
pub(crate) const PATH: &str = "/mcp";

type Service = StreamableHttpService<McpServer, LocalSessionManager>;

/// Binds `addr` and serves until the process is interrupted (Ctrl-C) or the listener fails.
/// The bound address is printed on stderr as `listening on http://ADDR/mcp` (so a port of 0
/// can be used and read back).
pub(crate) async fn serve(
    server: McpServer,
    addr: SocketAddr,
    allow_hosts: &[String],
) -> Result<(), Failure> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Failure::new(INPUT, anyhow!("--http {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Failure::new(INDEX, anyhow!("--http {addr}: {e}")))?;
    let service = service(server, allow_hosts);
    eprintln!("navigator mcp: listening on http://{bound}{PATH}");
    tracing::info!("MCP over streamable HTTP on http://{bound}{PATH}");
    let stop = crate::signal::shutdown();
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                // A failed accept (too many open files, a reset before accept) loses one
                // connection, not the server.
                Err(e) => {
                    tracing::warn!("accepting a connection: {e}");
                    continue;
                }
            },
            _ = &mut stop => return Ok(()),
        };
        let service = service.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(route(&service, request).await) }
            });
            if let Err(e) = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), handler)
                .await
            {
                tracing::debug!("connection from {peer}: {e}");
            }
        });
    }
}

/// The streamable HTTP service over clones of `server`.
fn service(server: McpServer, allow_hosts: &[String]) -> Arc<Service> {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1", "[::1]"]
        .into_iter()
        .map(String::from)
        .collect();
    hosts.extend(allow_hosts.iter().cloned());
    let config = StreamableHttpServerConfig::default().with_allowed_hosts(hosts);
    Arc::new(StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    ))
}

/// `/mcp` to the MCP service, anything else 404.
async fn route(
    service: &Service,
    request: Request<Incoming>,
) -> Response<BoxBody<Bytes, Infallible>> {
    if request.uri().path() != PATH {
        let mut response = Response::new(
            Full::new(Bytes::from(format!(
                "not found: the MCP endpoint is {PATH}\n"
            )))
            .boxed(),
        );
        *response.status_mut() = StatusCode::NOT_FOUND;
        return response;
    }
    if request.method() != hyper::Method::POST {
        return service.handle(request).await;
    }
    // A body that is not JSON, or JSON that is not a JSON-RPC message, is a JSON-RPC error
    // (-32700, -32600) as on stdio, not rmcp's plain-text 415.
    let (parts, body) = request.into_parts();
    let bytes = match http_body_util::Limited::new(body, MAX_BODY_BYTES)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(e) => {
            return json_rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                -32600,
                &format!("the request body could not be read whole: {e}"),
            )
        }
    };
    let value = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(value) => value,
        Err(e) => {
            return json_rpc_error(
                StatusCode::BAD_REQUEST,
                -32700,
                &format!("Parse error: {e}"),
            )
        }
    };
    if let Some(reply) = navigator_workflow::mcp::invalid_message_reply(&value) {
        let mut response = Response::new(Full::new(Bytes::from(reply)).boxed());
        *response.status_mut() = StatusCode::BAD_REQUEST;
        response.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("application/json"),
        );
        return response;
    }
    if let Err(e) = serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(value) {
        return json_rpc_error(
            StatusCode::BAD_REQUEST,
            -32600,
            &format!("Invalid Request: not a JSON-RPC message ({e})"),
        );
    }
    service
        .handle(Request::from_parts(parts, Full::new(bytes)))
        .await
}

/// The largest request body read (16 MiB, as a stdio line).
const MAX_BODY_BYTES: usize = 16 << 20;

/// A JSON-RPC error reply with no id (the request's could not be read).
fn json_rpc_error(
    status: StatusCode,
    code: i64,
    message: &str,
) -> Response<BoxBody<Bytes, Infallible>> {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": null, "error": { "code": code, "message": message }
    });
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}
