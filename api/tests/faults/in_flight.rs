//! A slow client takes no more than its share of the server: its requests being answered at
//! once are counted (`--limit-in-flight`), so one address trickling request bodies cannot hold
//! every worker. Past its share it is answered 429 at once; another address is served as if
//! nothing happened; once its requests end it is served again.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::harness::{Server, connect_from, from, send};

/// The requests one address may have answered at once, lowered to reach it quickly.
const SHARE: usize = 4;

/// A request from `127.0.0.N` whose headers are sent and whose body never ends.
async fn trickling(n: u8, to: SocketAddr) -> TcpStream {
    let mut stream = connect_from(n, to).await.unwrap();
    stream
        .write_all(
            b"POST /games/slow/talk HTTP/1.1\r\nHost: saboteur\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"text\": \"",
        )
        .await
        .unwrap();
    stream
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_client_takes_no_more_than_its_share() {
    let _machine = crate::harness::beside().await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("slow.db").display());
    let server = Server::start_limited(&url, &["--limit-in-flight", &SHARE.to_string()]);
    let s = server.remote();
    let to: SocketAddr = s.base.trim_start_matches("http://").parse().unwrap();
    // 127.0.0.5 sends one request more than its share, each body trickling: exactly one is
    // refused at once (whichever reached the server last), the others are held.
    let mut slow = Vec::new();
    for _ in 0..=SHARE {
        slow.push(trickling(5, to).await);
    }
    let mut reads = tokio::task::JoinSet::new();
    for mut stream in slow {
        reads.spawn(async move {
            let mut answer = vec![0u8; 1024];
            let read = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut answer)).await;
            let answer = match read {
                Ok(Ok(n)) => Some(String::from_utf8_lossy(&answer[..n]).to_string()),
                _ => None,
            };
            (answer, stream)
        });
    }
    let (mut held, mut answered) = (Vec::new(), Vec::new());
    while let Some(read) = reads.join_next().await {
        match read.expect("a read") {
            (Some(answer), _) => answered.push(answer),
            (None, stream) => held.push(stream),
        }
    }
    assert_eq!((held.len(), answered.len()), (SHARE, 1), "{answered:?}");
    assert!(answered[0].starts_with("HTTP/1.1 429"), "{}", answered[0]);
    assert!(
        answered[0].contains("being answered at once"),
        "{}",
        answered[0]
    );
    assert!(
        answered[0].to_ascii_lowercase().contains("retry-after: 1"),
        "{}",
        answered[0]
    );
    // While they are held, its next request, however cheap, is refused.
    let (st, problem, _) = send(from(5).get(s.url("/games"))).await.expect("a reply");
    assert_eq!(st, StatusCode::TOO_MANY_REQUESTS, "{problem}");
    assert_eq!(problem["code"], "too_many_requests", "{problem}");
    // Another address is served at once.
    let started = Instant::now();
    let (st, _, _) = send(from(6).get(s.url("/games"))).await.expect("a reply");
    assert_eq!(st, StatusCode::OK);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // The slow requests end (their connections closed): the address is served again.
    drop(held);
    let mut served = false;
    for _ in 0..50 {
        if send(from(5).get(s.url("/games"))).await.expect("a reply").0 == StatusCode::OK {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        served,
        "the address is served again once its requests ended"
    );
}
