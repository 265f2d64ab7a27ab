//! Identity's part of the API description against its routes and the gateway.

#[test]
fn every_operation_is_described_routed_and_sent_here_by_the_gateway() {
    let part = coffer_identity::api::part();
    coffer_testkit::contract::assert_described(&part);
    coffer_testkit::contract::assert_operation_ids(&part);
    coffer_testkit::contract::assert_gateway_routes(&part, "coffer_identity");
}
