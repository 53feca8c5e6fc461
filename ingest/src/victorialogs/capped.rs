//! A whole HTTP answer read into memory up to a cap (`--max-answer-bytes`
//! for Prometheus, [`super::JSON_ANSWER_LIMIT`] for VictoriaLogs' small
//! JSON answers), holding at most the cap: the buffer is reserved once from
//! `Content-Length` when the server sends one within the cap (one past it
//! fails at once, nothing read), else grows by doubling but never past the
//! cap (a `Vec` left to itself reaches twice the cap, and a copy into a
//! `String` doubled it again). The answer is parsed from these bytes.

use futures::StreamExt;
use reqwest::Response;

/// The answer went on past the cap (the rest is not read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overflow;

/// Why [`read_capped`] stopped.
#[derive(Debug)]
pub enum ReadError {
    /// Past the cap.
    Overflow,
    /// The connection broke (or a read timed out).
    Transport(reqwest::Error),
}

/// The bytes of an answer being read, never more than `cap`.
#[derive(Debug)]
pub struct CappedBody {
    bytes: Vec<u8>,
    cap: usize,
}

impl CappedBody {
    /// An empty body of at most `cap` bytes, its room reserved for the
    /// `content_length` the server announced.
    ///
    /// # Errors
    /// [`Overflow`] when the announced length is past the cap.
    pub fn new(cap: usize, content_length: Option<u64>) -> Result<CappedBody, Overflow> {
        let bytes = match content_length.map(usize::try_from) {
            Some(Ok(n)) if n <= cap => Vec::with_capacity(n),
            Some(_) => return Err(Overflow),
            None => Vec::new(),
        };
        Ok(CappedBody { bytes, cap })
    }

    /// Appends `chunk`.
    ///
    /// # Errors
    /// [`Overflow`] when it would take the body past the cap (nothing of it is kept).
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), Overflow> {
        let need = self.bytes.len() + chunk.len();
        if need > self.cap {
            return Err(Overflow);
        }
        if need > self.bytes.capacity() {
            // Doubling, but never past the cap.
            self.bytes.reserve_exact(need.saturating_mul(2).clamp(need, self.cap) - self.bytes.len());
        }
        self.bytes.extend_from_slice(chunk);
        Ok(())
    }

    /// The bytes read.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Room held, bytes.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.bytes.capacity()
    }
}

/// Reads `response`'s whole body, at most `cap` bytes ([`CappedBody`]).
///
/// # Errors
/// [`ReadError::Overflow`] past the cap, [`ReadError::Transport`] when the
/// connection breaks.
pub async fn read_capped(response: Response, cap: usize) -> Result<Vec<u8>, ReadError> {
    let mut body = CappedBody::new(cap, response.content_length()).map_err(|Overflow| ReadError::Overflow)?;
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        body.push(&chunk.map_err(ReadError::Transport)?).map_err(|Overflow| ReadError::Overflow)?;
    }
    Ok(body.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Capped answers held up to twice their cap (a `Vec` doubling from
    /// 16 MiB + 1 byte to 32 MiB): the room stays within the cap (plus one
    /// chunk) whatever the chunks, and is reserved once from Content-Length.
    #[test]
    fn the_room_held_never_passes_the_cap() {
        let cap = (16 << 20) + 5;
        let chunk = vec![b' '; 64 << 10];
        let mut body = CappedBody::new(cap, None).expect("no length");
        let mut peak = 0;
        while body.push(&chunk).is_ok() {
            peak = peak.max(body.capacity());
        }
        assert!(peak <= cap + chunk.len(), "{peak} > {cap} + one chunk");
        assert_eq!(body.capacity(), cap, "the last growth stops at the cap");
        assert_eq!(body.push(&[b' '; 5]), Ok(()), "exactly the cap is read");
        assert_eq!(body.push(b" "), Err(Overflow));
        assert_eq!(body.into_bytes().len(), cap);

        // Announced: reserved once, never grown.
        let mut body = CappedBody::new(cap, Some(1_000_000)).expect("within the cap");
        for _ in 0..1_000 {
            body.push(&[b'x'; 1_000]).expect("room");
        }
        assert_eq!(body.capacity(), 1_000_000);
        assert_eq!(CappedBody::new(cap, Some(cap as u64 + 1)).map(|_| ()), Err(Overflow), "past it: refused unread");
    }
}
