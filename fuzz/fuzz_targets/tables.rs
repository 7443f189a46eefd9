//! Target `tables`: every table built whole from any bytes (`monapi::fuzz::tables`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| monapi::fuzz::tables(data));
