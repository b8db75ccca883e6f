//! The `Content-Length` framer on arbitrary bytes, fed at once and in chunks whose sizes come
//! from the input: never a panic, the same frames and errors whatever the chunking, no frame
//! over the limit, and `finish` always answers.
#![no_main]

use agentwire_runtime::framing::{ContentLengthDecoder, Frame, FramingError};
use libfuzzer_sys::fuzz_target;

fn drain(decoder: &mut ContentLengthDecoder, out: &mut Vec<Result<Frame, FramingError>>) {
    // Each call consumes input or stops: bounded by the input length plus one.
    for _ in 0..=decoder.buffered() + 1 {
        match decoder.next_frame() {
            Ok(None) => return,
            item => out.push(item.map(|f| f.expect("Some"))),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&chunk, input)) = data.split_first() else {
        return;
    };
    let max = 64 + usize::from(chunk) * 4;
    let mut whole = ContentLengthDecoder::with_max_frame_size(max);
    let mut at_once = Vec::new();
    whole.push(input);
    drain(&mut whole, &mut at_once);
    let mut pieces = ContentLengthDecoder::with_max_frame_size(max);
    let mut chunked = Vec::new();
    for piece in input.chunks(usize::from(chunk % 16) + 1) {
        pieces.push(piece);
        drain(&mut pieces, &mut chunked);
    }
    // Frames depend only on the bytes. (Errors may be reported at other offsets while a
    // header block is incomplete, so only frames are compared.)
    let frames = |items: &[Result<Frame, FramingError>]| {
        items
            .iter()
            .filter_map(|i| i.as_ref().ok().cloned())
            .collect::<Vec<_>>()
    };
    assert_eq!(frames(&at_once), frames(&chunked));
    for frame in frames(&at_once) {
        assert!(frame.body.len() <= max);
    }
    let _ = whole.finish();
    let _ = pieces.finish();
});
