#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kibitzer_fuzz::tells_and_wire(data));
