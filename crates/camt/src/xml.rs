//! Small steps over roxmltree nodes. Elements are matched by local name only: banks use a
//! default namespace, `ns2:`-style prefixes or both, and inside a camt document a local name
//! never means two things.

use roxmltree::Node;

/// The first child element called `name`.
pub(crate) fn child<'a, 'input>(node: Node<'a, 'input>, name: &str) -> Option<Node<'a, 'input>> {
    node.children()
        .find(|n| n.is_element() && n.tag_name().name() == name)
}

/// The element reached by following `path` from `node`, taking the first match each step.
pub(crate) fn descend<'a, 'input>(
    node: Node<'a, 'input>,
    path: &[&str],
) -> Option<Node<'a, 'input>> {
    path.iter().try_fold(node, |at, name| child(at, name))
}

/// The element's text, trimmed; `None` when there is none.
pub(crate) fn text<'a>(node: Node<'a, '_>) -> Option<&'a str> {
    let trimmed = node.text()?.trim();
    (!trimmed.is_empty()).then_some(trimmed)
}

/// The element's text as an owned value to keep.
pub(crate) fn owned(node: Node<'_, '_>) -> Option<String> {
    text(node).map(str::to_owned)
}

/// The text at `path` below `node`, owned.
pub(crate) fn owned_at(node: Node<'_, '_>, path: &[&str]) -> Option<String> {
    descend(node, path).and_then(owned)
}

/// The element children of `node`, for a single pass that matches on local names.
pub(crate) fn elements<'a, 'input>(
    node: Node<'a, 'input>,
) -> impl Iterator<Item = Node<'a, 'input>> {
    node.children().filter(Node::is_element)
}

/// The line an element starts on, for error messages.
pub(crate) fn line(node: Node<'_, '_>) -> u32 {
    node.document().text_pos_at(node.range().start).row
}
