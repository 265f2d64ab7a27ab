//! Billing's part of the API description against its routes and the gateway.

#[test]
fn every_operation_is_described_routed_and_sent_here_by_the_gateway() {
    coffer_testkit::contract::assert_contract(&coffer_billing::api_part(), "coffer_billing");
}
