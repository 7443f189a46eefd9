//! Target `arriving`: a body read as it arrives, cut anywhere (`monapi::fuzz::arriving`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| monapi::fuzz::arriving(data));
