//! Estimates before a run: prompt tokens from the size of the rendered requests.

/// Bytes of a rendered request body per prompt token of the estimate.
pub const BYTES_PER_TOKEN: f64 = 4.0;

/// Estimated prompt tokens of a request body of `bytes` bytes.
pub fn tokens_of_bytes(bytes: usize) -> u64 {
    (bytes as f64 / BYTES_PER_TOKEN).ceil() as u64
}
