//! Verification of a bundle (see below).
