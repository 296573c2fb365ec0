//! Tool-call graph engine: lazy path semantics of the official enumeration (PROTOCOL §3).
