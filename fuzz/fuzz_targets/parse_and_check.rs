#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = knn_fuzzing::parse_and_check(data);
});
