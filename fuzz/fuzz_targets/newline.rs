//! The newline-delimited JSON codec (MCP's stdio framing) on arbitrary bytes, fed at once and
//! in chunks whose sizes come from the input: never a panic, the same lines and errors whatever
//! the chunking, no line over the limit, and end of input always answers.
#![no_main]

// The transport's own codec, compiled in: the fuzz workspace does not build the whole
// transport crate (its servers and C dependencies) just for one codec.
#[path = "../../transport/src/jsonrpc/newline.rs"]
#[allow(dead_code)] // `mid_frame` serves the peer's read deadline, which this target does not run.
mod newline;

use agentwire_runtime::framing::FramingError;
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use newline::NewlineCodec;
use tokio_util::codec::Decoder;

type Item = Result<String, FramingError>;

/// Decodes all that `buf` holds; each call consumes input or stops, so this is bounded.
fn drain(codec: &mut NewlineCodec, buf: &mut BytesMut, out: &mut Vec<Item>) {
    for _ in 0..=buf.len() + 1 {
        match codec.decode(buf) {
            Ok(Some(item)) => out.push(item),
            Ok(None) => return,
            Err(e) => panic!("the codec reports framing errors as items, got {e}"),
        }
    }
}

fn finish(codec: &mut NewlineCodec, buf: &mut BytesMut, out: &mut Vec<Item>) {
    drain(codec, buf, out);
    if let Ok(Some(item)) = codec.decode_eof(buf) {
        out.push(item);
    }
    drain(codec, buf, out);
}

fuzz_target!(|data: &[u8]| {
    let Some((&chunk, input)) = data.split_first() else {
        return;
    };
    let max = 16 + usize::from(chunk) * 2;
    let (mut whole, mut at_once) = (NewlineCodec::new(max), Vec::new());
    let mut buf = BytesMut::from(input);
    finish(&mut whole, &mut buf, &mut at_once);

    let (mut pieces, mut chunked) = (NewlineCodec::new(max), Vec::new());
    let mut buf = BytesMut::new();
    for piece in input.chunks(usize::from(chunk % 16) + 1) {
        buf.extend_from_slice(piece);
        drain(&mut pieces, &mut buf, &mut chunked);
    }
    finish(&mut pieces, &mut buf, &mut chunked);

    // Lines and errors (with their offsets) depend only on the bytes.
    assert_eq!(at_once, chunked);
    for line in at_once.iter().flatten() {
        assert!(line.len() <= max && !line.contains('\n'));
    }
});
