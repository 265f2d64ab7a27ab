//! From the tree of the file without its entries to a [`Document`]: find the message,
//! check its version, read the group header and each statement or notification, whose
//! entries chunks.rs reads from trees of their own.

use roxmltree::Node;

use crate::chunks::Chunks;
use crate::document::{Account, Document, MessageType, Statement};
use crate::error::CamtError;
use crate::version::{self, Named};
use crate::xml::{child, descend, elements, owned, owned_at};

const STATEMENT: &str = "BkToCstmrStmt";
const NOTIFICATION: &str = "BkToCstmrDbtCdtNtfctn";

/// How far below the root a `Document` may sit. Files delivered over SWIFT or by some
/// banking portals wrap it together with a head.001 AppHdr (`<message>`, `<Envelope>`,
/// a SOAP body); three levels cover those while keeping the search to the file's top.
const WRAPPER_DEPTH: usize = 3;

pub(crate) fn read_document(
    tree: &roxmltree::Document<'_>,
    chunks: &mut Chunks<'_>,
) -> Result<Document, CamtError> {
    let message = find_message(tree.root_element()).ok_or(CamtError::NotCamt)?;
    let (message_type, version) = message_version(message)?;

    let header = child(message, "GrpHdr").ok_or(CamtError::Missing { path: "GrpHdr" })?;
    let message_id = child(header, "MsgId")
        .and_then(owned)
        .ok_or(CamtError::Missing {
            path: "GrpHdr/MsgId",
        })?;
    let created_at = owned_at(header, &["CreDtTm"]);

    let statement_name = match message_type {
        MessageType::Camt053 => "Stmt",
        MessageType::Camt054 => "Ntfctn",
    };
    let statements = elements(message)
        .filter(|n| n.tag_name().name() == statement_name)
        .map(|n| read_statement(n, message_type, chunks))
        .collect::<Result<Vec<_>, _>>()?;
    if statements.is_empty() {
        return Err(CamtError::NoStatement);
    }

    Ok(Document {
        message_type,
        version,
        message_id,
        created_at,
        statements,
    })
}

/// The `BkToCstmrStmt` or `BkToCstmrDbtCdtNtfctn` element, under a `Document` that is the
/// root or sits in a wrapper. Searched breadth first so an AppHdr is passed over cheaply.
fn find_message<'a, 'input>(root: Node<'a, 'input>) -> Option<Node<'a, 'input>> {
    let mut level = vec![root];
    for _ in 0..=WRAPPER_DEPTH {
        let mut next = Vec::new();
        for node in level {
            match node.tag_name().name() {
                "Document" => {
                    return elements(node).find(|n| is_message(*n));
                }
                // A message element without its Document wrapper, as some exports write it.
                _ if is_message(node) => return Some(node),
                _ => next.extend(elements(node)),
            }
        }
        level = next;
    }
    None
}

fn is_message(node: Node<'_, '_>) -> bool {
    matches!(node.tag_name().name(), STATEMENT | NOTIFICATION)
}

/// The message type is the element; the version comes from its namespace, which must name
/// the same message.
fn message_version(message: Node<'_, '_>) -> Result<(MessageType, String), CamtError> {
    let by_element = match message.tag_name().name() {
        STATEMENT => MessageType::Camt053,
        _ => MessageType::Camt054,
    };
    let namespace = message.tag_name().namespace().unwrap_or("");
    match version::from_namespace(namespace) {
        Named::Supported(by_namespace, version) if by_namespace == by_element => {
            Ok((by_element, version))
        }
        Named::Supported(_, version) => Err(CamtError::UnsupportedVersion(format!(
            "the namespace says {version} but the file holds a {}",
            by_element.as_str()
        ))),
        Named::Other(named) => Err(CamtError::UnsupportedVersion(format!(
            "{named} (camt.053 and camt.054 versions 001.02 to 001.10 are read)"
        ))),
        Named::Unknown if namespace.is_empty() => Err(CamtError::UnsupportedVersion(
            "the file does not say which camt version it is (no namespace)".into(),
        )),
        Named::Unknown => Err(CamtError::UnsupportedVersion(format!(
            "the namespace {namespace:?} names no camt version"
        ))),
    }
}

fn read_statement(
    node: Node<'_, '_>,
    message_type: MessageType,
    chunks: &mut Chunks<'_>,
) -> Result<Statement, CamtError> {
    let mut id = None;
    let mut created_at = None;
    let mut account = None;
    let mut entries = Vec::new();
    for part in elements(node) {
        match part.tag_name().name() {
            "Id" => id = owned(part),
            "CreDtTm" => created_at = owned(part),
            "Acct" => account = Some(read_account(part)),
            "Ntry" => entries.push(chunks.entry(part, entries.len())?),
            _ => {}
        }
    }
    let (id_path, account_path) = match message_type {
        MessageType::Camt053 => ("Stmt/Id", "Stmt/Acct"),
        MessageType::Camt054 => ("Ntfctn/Id", "Ntfctn/Acct"),
    };
    Ok(Statement {
        id: id.ok_or(CamtError::Missing { path: id_path })?,
        account: account.ok_or(CamtError::Missing { path: account_path })?,
        created_at,
        entries,
    })
}

fn read_account(node: Node<'_, '_>) -> Account {
    let owner = child(node, "Ownr");
    Account {
        iban: owned_at(node, &["Id", "IBAN"]),
        other_id: owned_at(node, &["Id", "Othr", "Id"]),
        currency: owned_at(node, &["Ccy"]),
        owner_name: owner.and_then(|o| {
            descend(o, &["Nm"])
                .or_else(|| descend(o, &["Pty", "Nm"]))
                .and_then(owned)
        }),
    }
}
