//! `kdrift report --html`: one self-contained HTML file (inline CSS and
//! SVG, no script, no network) with the drain timeline as a Gantt chart,
//! every node's requested % over time, and the Pending chains. Pure
//! functions over [`kdrift_analyze::ReportData`] writing to any
//! `Write`; the same data always gives the same bytes.
//!
//! - [`document`]: the page, its header and sections;
//! - [`gantt`]: the drain timeline chart;
//! - [`series`]: the requested % line charts;
//! - [`chains`]: the Pending chains;
//! - [`scale`]: the time axis and coordinates; [`escape`]: HTML escaping.

pub mod chains;
pub mod document;
pub mod escape;
pub mod gantt;
pub mod scale;
pub mod series;

pub use document::html;
