//! HEAD on every GET route: the request is answered as the GET it names, without the body
//! (RFC 9110 §9.3.2). The headers stay, `Content-Length` included; a body that is a stream
//! (an event stream) is dropped at once, so a HEAD holds nothing open.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::HttpMessage;
use actix_web::body::{BodySize, EitherBody, MessageBody};
use actix_web::dev::{Service, ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::web::Bytes;

/// Marks a request that came as HEAD (a handler may answer it without making the body).
#[derive(Debug, Clone, Copy)]
pub(crate) struct AskedHead;

/// Middleware: a HEAD request is routed as a GET (marked [`AskedHead`]), and its response's
/// body dropped.
pub(crate) fn head_as_get<S, B>(
    mut req: ServiceRequest,
    srv: &S,
) -> impl Future<Output = Result<ServiceResponse<EitherBody<B, Headless>>, actix_web::Error>> + use<S, B>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let head = req.method() == Method::HEAD;
    if head {
        req.head_mut().method = Method::GET;
        req.extensions_mut().insert(AskedHead);
    }
    let call = srv.call(req);
    async move {
        let res = call.await?;
        Ok(if head {
            res.map_body(|_, body| EitherBody::right(Headless(body.size())))
        } else {
            res.map_into_left_body()
        })
    }
}

/// The body of a response to HEAD: the size the GET's body has, and no bytes.
pub(crate) struct Headless(BodySize);

impl MessageBody for Headless {
    type Error = Infallible;

    fn size(&self) -> BodySize {
        self.0
    }

    fn poll_next(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Infallible>>> {
        Poll::Ready(None)
    }
}
