//! Target `answers`: every answer's decoding, on any bytes (`monapi::fuzz::answers`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| monapi::fuzz::answers(data));
