//! Fair shares at the front: one address that opens more connections than its share, each
//! holding half a request, is refused past its share at once, while another address is served
//! as if nothing happened; once it lets go, the first address is served again.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::harness::Remote;

/// The connections one source address may hold at the front (deploy/haproxy.cfg.in).
const SHARE: usize = 256;

/// How many connections past its share the greedy address opens.
const PAST: usize = 64;

async fn connect_from(source: [u8; 4], to: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::from((source, 0)))?;
    socket.connect(to).await
}

/// A `GET /games` from `source` through the front: its status and how long it took.
async fn listing_from(front: &Remote, source: [u8; 4]) -> (Option<u16>, Duration) {
    let client = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from(source))
        .timeout(Duration::from_secs(10))
        .build()
        .expect("a client");
    let started = Instant::now();
    let status = client
        .get(front.url("/games"))
        .send()
        .await
        .ok()
        .map(|r| r.status().as_u16());
    (status, started.elapsed())
}

pub async fn a_source_holds_its_share(front: &Remote) {
    let to: SocketAddr = front
        .base
        .trim_start_matches("http://")
        .parse()
        .expect("the front's address");
    // 127.0.0.3 opens its share and more, each connection with half a request, and holds them.
    let mut held = Vec::new();
    let mut refused = 0;
    for _ in 0..SHARE + PAST {
        match connect_from([127, 0, 0, 3], to).await {
            Ok(mut stream) => {
                let _ = stream
                    .write_all(b"GET /games HTTP/1.1\r\nHost: saboteur\r\n")
                    .await;
                held.push(stream);
            }
            Err(_) => refused += 1,
        }
    }
    // Those past the share were refused or closed at once: a read ends (end of stream, or
    // reset) where an accepted one waits for the rest of its request.
    let mut reads = tokio::task::JoinSet::new();
    for mut stream in held {
        reads.spawn(async move {
            let mut buf = [0u8; 256];
            let closed = matches!(
                tokio::time::timeout(Duration::from_millis(300), stream.read(&mut buf)).await,
                Ok(Ok(0) | Err(_))
            );
            (closed, stream)
        });
    }
    let mut kept = Vec::new();
    let mut closed = refused;
    while let Some(read) = reads.join_next().await {
        let (was_closed, stream) = read.expect("a read");
        if was_closed {
            closed += 1;
        } else {
            kept.push(stream);
        }
    }
    assert!(
        closed >= PAST && kept.len() >= SHARE - 8,
        "of {} connections from one address, {closed} were refused or closed at once and {} \
         held: the front holds {SHARE} per address",
        SHARE + PAST,
        kept.len()
    );
    // Meanwhile another address is served at once.
    let (status, took) = listing_from(front, [127, 0, 0, 4]).await;
    assert_eq!(status, Some(200), "another address is served");
    assert!(
        took < Duration::from_secs(2),
        "another address waited {took:?}"
    );
    // The greedy address lets go: it is served again.
    drop(kept);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (status, _) = listing_from(front, [127, 0, 0, 3]).await;
    assert_eq!(
        status,
        Some(200),
        "the address is served again once it let go"
    );
    eprintln!(
        "fair shares: {closed} of {} connections from one address refused or closed at once; \
         another address served in {took:?}",
        SHARE + PAST
    );
}
