//! The machine's f64 vector peak on one core: independent accumulators updated with
//! `vmulpd` + `vaddpd` (exact mode's operations) and with `vfmadd` (fast mode's), no memory
//! traffic, on the widest vectors the CPU has (AVX-512, else AVX2). `docs/performance.md`
//! compares the kernels and onnxruntime with it.
//!
//! Usage: `cargo run --release -p knn-benches --example peak`

fn main() {
    #[cfg(target_arch = "x86_64")]
    {
        let isa = if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("fma") {
            Some("AVX-512")
        } else if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            Some("AVX2")
        } else {
            None
        };
        if let Some(isa) = isa {
            for fused in [false, true] {
                // SAFETY: the features were just detected.
                let rate = unsafe { if isa == "AVX-512" { x86::avx512_rate(fused) } else { x86::avx2_rate(fused) } };
                let name = if fused { "fused multiply-add" } else { "multiply then add" };
                println!("{isa}, {name}: {:.1} G multiply-adds/s on one core", rate / 1e9);
            }
            return;
        }
    }
    println!("this measurement needs AVX2 or AVX-512");
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;
    use std::time::Instant;

    const ROUNDS: usize = 50_000_000;

    #[target_feature(enable = "avx512f,fma")]
    pub unsafe fn avx512_rate(fused: bool) -> f64 {
        // 12 accumulators and 4 multiplicands: everything stays in the 32 vector registers.
        let mut acc = [_mm512_set1_pd(1.0); 12];
        let x: [__m512d; 4] = std::array::from_fn(|i| _mm512_set1_pd(1.0 + i as f64 * 1e-9));
        let mut w = _mm512_set1_pd(1e-12);
        let start = Instant::now();
        for _ in 0..ROUNDS {
            // An opaque `w` each round (an empty `asm!` that may change the register): the
            // products cannot be hoisted out of the loop, and nothing touches memory.
            // SAFETY: the assembly is empty.
            unsafe { std::arch::asm!("/* {0} */", inout(zmm_reg) w, options(pure, nomem, nostack)) };
            for (k, a) in acc.iter_mut().enumerate() {
                let xi = &x[k % 4];
                *a = if fused { _mm512_fmadd_pd(w, *xi, *a) } else { _mm512_add_pd(*a, _mm512_mul_pd(w, *xi)) };
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        std::hint::black_box(acc);
        (ROUNDS * acc.len() * 8) as f64 / seconds
    }

    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn avx2_rate(fused: bool) -> f64 {
        // 10 accumulators, 2 multiplicands, `w` and a product: within the 16 vector registers.
        let mut acc = [_mm256_set1_pd(1.0); 10];
        let x: [__m256d; 2] = std::array::from_fn(|i| _mm256_set1_pd(1.0 + i as f64 * 1e-9));
        let mut w = _mm256_set1_pd(1e-12);
        let start = Instant::now();
        for _ in 0..ROUNDS {
            // SAFETY: the assembly is empty (as above).
            unsafe { std::arch::asm!("/* {0} */", inout(ymm_reg) w, options(pure, nomem, nostack)) };
            for (k, a) in acc.iter_mut().enumerate() {
                let xi = &x[k % 2];
                *a = if fused { _mm256_fmadd_pd(w, *xi, *a) } else { _mm256_add_pd(*a, _mm256_mul_pd(w, *xi)) };
            }
        }
        let seconds = start.elapsed().as_secs_f64();
        std::hint::black_box(acc);
        (ROUNDS * acc.len() * 4) as f64 / seconds
    }
}
