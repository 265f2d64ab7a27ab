//! Bounds on what one file may cost to read, checked before the XML is parsed.

/// How large, deep, busy and costly a file may be. Every bound is checked by a pass over
/// the text before roxmltree builds any tree (prescan.rs, memory.rs), so a hostile upload
/// is refused without being held in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Limits {
    /// Largest accepted file, in bytes, checked before anything else.
    pub max_bytes: usize,
    /// Deepest element nesting. Real statements nest about 12 levels.
    pub max_depth: u32,
    /// Most XML nodes (elements, text, comments) in the file.
    pub max_nodes: u32,
    /// Most attributes on one element, namespace declarations included. roxmltree checks
    /// each attribute against every one before it on the element, so an element costs
    /// the square of its attributes; bank files carry at most four (the `Document`
    /// element's namespaces and schema location).
    pub max_attributes_per_element: u32,
    /// Most attributes in the file. Bank files carry about one per 100 to 400 bytes
    /// (`Ccy` on amounts).
    pub max_attributes: u32,
    /// Most namespaces declared on an element and its ancestors together. roxmltree
    /// copies those in scope for every element that declares one, and checks each new
    /// declaration against them; bank files declare at most four.
    pub max_namespaces_in_scope: u32,
    /// Most memory reading the file may take, the file itself included, as estimated
    /// from what the pass over its text counted (memory.rs).
    pub max_memory: usize,
}

const MIB: usize = 1024 * 1024;

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_bytes: 128 * MIB,
            max_depth: 64,
            // Real statements spend 13 to 16 bytes per node, indented or not, so a 128 MiB
            // file has about 10 million. One node per 8 bytes leaves room for denser
            // exports.
            max_nodes: 16 * 1024 * 1024,
            max_attributes_per_element: 32,
            // A 128 MiB file at one attribute per 32 bytes, four times the densest sample.
            max_attributes: 4 * 1024 * 1024,
            max_namespaces_in_scope: 64,
            // No bound of its own: a caller that reads files side by side sets one from
            // its memory budget.
            max_memory: usize::MAX,
        }
    }
}
