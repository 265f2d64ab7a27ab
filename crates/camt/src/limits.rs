//! Bounds on what one file may cost to read, checked before the XML is parsed.

/// How large, deep and busy a file may be. Every bound is checked before (or while)
/// roxmltree builds its tree, so a hostile upload is refused without being held in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Limits {
    /// Largest accepted file, in bytes, checked before anything else.
    pub max_bytes: usize,
    /// Deepest element nesting. Real statements nest about 12 levels.
    pub max_depth: u32,
    /// Most XML nodes (elements, text, comments) roxmltree may build.
    pub max_nodes: u32,
}

const MIB: usize = 1024 * 1024;

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_bytes: 128 * MIB,
            max_depth: 64,
            // Real statements spend 13 to 16 bytes per node, indented or not, so a 128 MiB
            // file has about 10 million. One node per 8 bytes leaves room for denser exports
            // and caps roxmltree's tree (about 80 bytes a node) near 1.3 GiB.
            max_nodes: 16 * 1024 * 1024,
        }
    }
}
