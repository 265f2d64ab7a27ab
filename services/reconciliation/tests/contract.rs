//! Reconciliation's routes, its API description and the gateway agree.

#[test]
fn every_operation_is_described_routed_and_sent_here_by_the_gateway() {
    coffer_testkit::contract::assert_contract(
        &coffer_reconciliation::api_part(),
        "coffer_reconciliation",
    );
}
