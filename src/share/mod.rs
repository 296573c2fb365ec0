//! Share-link codec: a whole dashboard in a URL fragment.
