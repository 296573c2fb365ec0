//! The page's movable views and the widgets both page modules draw with.
//!
//! A movable view is a pure function from its contract input (`wildtool_contract::inputs`)
//! to an element tree. The app shell (`wildtool-web`) builds it in place or asks the lab
//! module (`wildtool-lab`) for it as a lab call and splices the answer in as `Node::Raw`;
//! which one is a line in the shell's placement table (`wildtool_web::placement`), so
//! moving a view between the two modules changes where it is built, not its code.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod dashboard;
pub mod history;
pub mod widgets;
