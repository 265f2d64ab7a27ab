#!/usr/bin/env bash
# The memory reading bank files takes, through reconciliation's own path (each file in its
# turn, parsed, processed and reported into a SQLite database; examples/read_peak.rs): the
# benchmark's 105 MB camt.053 alone, then beside two 50 MB statements and a 1 MB one, each
# its own organisation's. Prints each file's share of the budget and the peak resident
# memory, and /usr/bin/time's, for docs/benchmarks.md ("Memory while reading a file").
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

# The statement `coffer bench-reconcile` reads (services/coffer/src/bench_reconcile.rs,
# `generate`), written the same way: the first 1,000 entries are payout credits, the rest
# donations and debits with the details banks send.
write_statement() {
    python3 - "$1" "$2" <<'PY'
import sys
path, megabytes = sys.argv[1], int(sys.argv[2])
target, payouts = megabytes * 1024 * 1024, 1000
with open(path, "w", encoding="utf-8") as out:
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.04">\n'
              '<BkToCstmrStmt><GrpHdr><MsgId>BENCH-1</MsgId><CreDtTm>2026-11-21T06:00:00</CreDtTm></GrpHdr>\n'
              '<Stmt><Id>BENCH-1-1</Id><Acct><Id><IBAN>CH9300762011623852957</IBAN></Id><Ccy>CHF</Ccy></Acct>\n')
    written, i = 0, 0
    while written < target:
        if i < payouts:
            value, way, text = 10000 + (i * 37) % 90000, "CRDT", "Coffer payout CPO20261120%08X" % i
        else:
            value = 1000 + (i * 7919) % 500000
            way, text = ("DBIT" if i % 5 == 0 else "CRDT"), "Donation %d thank you for your support" % i
        amount = "%d.%02d" % (value // 100, value % 100)
        entry = (f'<Ntry><NtryRef>{i}</NtryRef><Amt Ccy="CHF">{amount}</Amt><CdtDbtInd>{way}</CdtDbtInd><Sts>BOOK</Sts>'
                 f'<BookgDt><Dt>2026-11-21</Dt></BookgDt><ValDt><Dt>2026-11-21</Dt></ValDt><AcctSvcrRef>BANK{i:012d}</AcctSvcrRef>'
                 '<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>'
                 f'<NtryDtls><TxDtls><Refs><EndToEndId>E2E{i:012d}</EndToEndId><TxId>TX{i:012d}</TxId></Refs>'
                 f'<Amt Ccy="CHF">{amount}</Amt><CdtDbtInd>{way}</CdtDbtInd>'
                 f'<RltdPties><Dbtr><Nm>Supporter {i}</Nm><PstlAdr><StrtNm>Bahnhofstrasse</StrtNm><PstCd>8001</PstCd><TwnNm>Zürich</TwnNm><Ctry>CH</Ctry></PstlAdr></Dbtr>'
                 '<DbtrAcct><Id><IBAN>CH5604835012345678009</IBAN></Id></DbtrAcct></RltdPties>'
                 f'<RmtInf><Ustrd>{text}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>\n')
        out.write(entry)
        written += len(entry.encode())
        i += 1
    out.write("</Stmt></BkToCstmrStmt></Document>\n")
PY
}

write_statement "$dir/statement-100.xml" 100
write_statement "$dir/statement-50a.xml" 50
write_statement "$dir/statement-50b.xml" 50
write_statement "$dir/statement-1.xml" 1

cargo build --release --example read_peak -p coffer-reconciliation >&2
bin="${CARGO_TARGET_DIR:-target}/release/examples/read_peak"

run() {
    local name="$1"
    shift
    echo "## $name"
    /usr/bin/time -v "$bin" "sqlite://$dir/$name.db" "$@" 2>"$dir/time.txt"
    grep -E 'Maximum resident|Elapsed' "$dir/time.txt"
}

run alone "$dir/statement-100.xml"
run together "$dir/statement-100.xml" "$dir/statement-50a.xml" "$dir/statement-50b.xml" "$dir/statement-1.xml"
