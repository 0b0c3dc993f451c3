#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| kibitzer_fuzz::fen_epd(data));
