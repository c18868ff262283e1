//! Index-free table-of-contents search over a time hierarchy.
